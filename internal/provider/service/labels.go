package service

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/lifecycle"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// send brings ins, registered, to d's spec and performs op there
// (lifecycle.Steps.Send), and returns the instances it succeeded on.
//
// A process whose meta.labels processes leaves unset keeps, on each host,
// the labels GSE holds there: GSEKit registers bk_process_name and
// bk_process_id (which differs from host to host), and whether
// update_proc_info (or an operation carrying the spec) keeps the labels it
// is not sent or drops them is not documented, so they are read
// (get_proc_status_v2) and sent back, one Send per distinct set of labels,
// all at once so that their operations share one task. Either server keeps
// them.
func (r *runner) send(ctx context.Context, d lifecycle.Desired, op gse.OpType, ins []*instance) []*instance {
	if d.Meta.Labels != nil {
		return r.sendTo(ctx, d, op, ins)
	}
	found, err := status.Find(ctx, r.steps.Client, d.Meta, d.Hosts)
	if err != nil {
		r.fail(ins, apiCode(err), "reading the labels GSE holds (get_proc_status_v2), to send them back: "+err.Error())
		return nil
	}
	sets := map[string][]*instance{}
	labelsOf := map[string]map[string]string{}
	for _, in := range ins {
		l := found[in.host.Key()].Meta.Labels
		k := labelsKey(l)
		sets[k], labelsOf[k] = append(sets[k], in), l
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ok []*instance
	for k, set := range sets {
		wg.Go(func() {
			dd := d
			dd.Meta.Labels, dd.Hosts = labelsOf[k], hostsOf(set)
			done := r.sendTo(ctx, dd, op, set)
			mu.Lock()
			ok = append(ok, done...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return ok
}

// sendTo is one Send of d to ins.
func (r *runner) sendTo(ctx context.Context, d lifecycle.Desired, op gse.OpType, ins []*instance) []*instance {
	var pr lifecycle.Proven
	if err := r.steps.Send(ctx, d, op, d.Hosts, &pr); err != nil {
		return r.settlePart(ins, err)
	}
	return ins
}

// labelsKey is one text per set of labels; none is "".
func labelsKey(l map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(l)) {
		b.WriteString(k + "\x00" + l[k] + "\x00")
	}
	return b.String()
}

func hostsOf(ins []*instance) []gse.Host {
	out := make([]gse.Host, len(ins))
	for i, in := range ins {
		out[i] = in.host
	}
	return out
}
