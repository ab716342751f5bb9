package gse_test

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// sentResources is the spec.resource of every spec each API was sent
// (operate_proc_multi's items included), in JSON, "none" where a spec had none.
func sentResources(bodies map[string][]map[string]any) map[string][]string {
	out := map[string][]string{}
	add := func(api string, body map[string]any) {
		sp, ok := body["spec"].(map[string]any)
		if !ok {
			return
		}
		res, ok := sp["resource"]
		if !ok {
			out[api] = append(out[api], "none")
			return
		}
		b, _ := json.Marshal(res)
		out[api] = append(out[api], string(b))
	}
	defer func() {
		for _, list := range out {
			slices.Sort(list) // the items of one operate_proc_multi come in any order
		}
	}()
	for api, list := range bodies {
		for _, body := range list {
			add(api, body)
			items, _ := body["proc_operate_req"].([]any)
			for _, it := range items {
				item, _ := it.(map[string]any)
				add(api, item)
			}
		}
	}
	return out
}

// What each path sends as spec.resource, for a spec without limits and one
// with only fd set: ESB's register_proc_info and update_proc_info, which
// require the block, get it (zeros without limits); ESB's operate_proc_v2 and
// operate_proc_multi, which define none, never; the gateway's operate and
// update_proc_info, to which GSEKit and bk-bscp send none, only with a limit.
func TestResourceBlockPerPath(t *testing.T) {
	t.Parallel()
	fd := int64(1024)
	noLimits := &gse.Spec{Identity: spec.Identity, Control: spec.Control, MonitorPolicy: &gse.MonitorPolicy{AutoType: 1}}
	fdOnly := &gse.Spec{Identity: spec.Identity, Control: spec.Control, MonitorPolicy: &gse.MonitorPolicy{AutoType: 1}, Resource: &gse.Resource{Fd: &fd}}
	zeros := &gse.Spec{Identity: spec.Identity, Control: spec.Control, MonitorPolicy: &gse.MonitorPolicy{AutoType: 1}, Resource: &gse.Resource{}}
	hosts := []gse.Host{{IP: "10.0.0.1"}}
	specs := []*gse.Spec{noLimits, zeros, fdOnly}
	metas := make([]gse.Meta, len(specs))
	for i := range specs {
		metas[i] = gse.Meta{Namespace: "gse", Name: fmt.Sprint("p", i)}
	}
	for _, window := range []time.Duration{-1, 100 * time.Millisecond} { // operate_proc_v2 one by one, one operate_proc_multi
		esb, sim, _ := newClientWith(t, simulator.Options{RecordRequests: true}, func(c *gse.Config) { c.BatchWindow = window })
		gw, _, rec := newGateway(t, simulator.Options{}, func(c *gse.Config) { c.BatchWindow = window })
		ctx := ctxTimeout(t, 10*time.Second)
		for i, sp := range specs {
			if _, err := esb.Proc.RegisterProcInfo(ctx, metas[i], hosts, sp); err != nil {
				t.Fatalf("register: %v", err)
			}
		}
		for _, c := range []*gse.Client{esb, gw} {
			var g errgroup.Group
			for i, sp := range specs {
				if _, err := c.Proc.UpdateProcInfo(ctx, metas[i], hosts, sp); err != nil {
					t.Fatalf("gateway %v: update: %v", c.Gateway(), err)
				}
				g.Go(func() error {
					_, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: metas[i], Hosts: hosts, Op: gse.OpStart, Spec: sp})
					return err
				})
			}
			if err := g.Wait(); err != nil {
				t.Fatalf("gateway %v: operate: %v", c.Gateway(), err)
			}
		}
		esbBodies, gwBodies := map[string][]map[string]any{}, map[string][]map[string]any{}
		for _, r := range sim.Requests() {
			var body map[string]any
			_ = json.Unmarshal(r.Body, &body)
			api := path.Base(strings.TrimSuffix(r.Path, "/"))
			esbBodies[api] = append(esbBodies[api], body)
		}
		for _, r := range rec.all() {
			gwBodies[path.Base(r.path)] = append(gwBodies[path.Base(r.path)], r.body)
		}
		operate := "operate_proc_multi"
		if window < 0 {
			operate = "operate_proc_v2"
		}
		zero, withFd := `{"cpu":0,"mem":0}`, `{"cpu":0,"fd":1024,"mem":0}`
		sorted := func(l ...string) string { slices.Sort(l); return fmt.Sprint(l) }
		want := map[string]string{ // for noLimits, zeros and fdOnly
			"esb register_proc_info":   sorted(zero, zero, withFd),
			"esb update_proc_info":     sorted(zero, zero, withFd),
			"esb " + operate:           sorted("none", "none", "none"),
			"gateway update_proc_info": sorted("none", "none", withFd),
			"gateway " + operate:       sorted("none", "none", withFd),
		}
		got := map[string]string{}
		for api, list := range sentResources(esbBodies) {
			got["esb "+api] = fmt.Sprint(list)
		}
		for api, list := range sentResources(gwBodies) {
			got["gateway "+api] = fmt.Sprint(list)
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("window %v: %s sent resource %s, want %s", window, k, got[k], w)
			}
		}
	}
}
