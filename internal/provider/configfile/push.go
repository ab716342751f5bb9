package configfile

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
)

// push sends the file to the hosts of plan that do not hold it (prior:
// their last known files) in one job, and sets sha256, host_status (pushed
// where the job succeeded, unreachable where it did not, as before
// elsewhere) and push_count (pushes, the prior count, one more when
// anything was sent). host_status stays unknown when nothing could be sent.
func (r *configFileResource) push(ctx context.Context, cfg tfsdk.Config, plan *configFileModel, prior map[string]hostFile, pushes types.Int64, diags *diag.Diagnostics) {
	text, _, d := configText(ctx, cfg)
	if diags.Append(d...); diags.HasError() {
		return
	}
	want := sum(text) // once: the content may be megabytes, the hosts thousands
	plan.SHA256 = types.StringValue(want)
	plan.PushCount = pushes
	ts := plan.targets()
	held := byHost(prior)
	var send []target
	status := map[string]hostFile{}
	for _, t := range ts {
		h, ok := held[t.identity()]
		if ok {
			status[t.key] = h
		}
		if !ok || !h.settled(want) {
			send = append(send, t)
		}
	}
	if len(send) > 0 {
		results, err := r.pushInBatches(ctx, plan, send, []byte(text))
		if len(results) > 0 {
			plan.PushCount = types.Int64Value(pushes.ValueInt64() + 1)
		}
		for _, t := range send {
			res, ok := results[t.key]
			switch {
			case ok && res.OK():
				status[t.key] = hostFile{Status: types.StringValue(statusPushed), SHA256: plan.SHA256}
			case ok:
				prev := status[t.key]
				if prev.SHA256.IsUnknown() {
					prev.SHA256 = types.StringNull()
				}
				status[t.key] = hostFile{Status: types.StringValue(statusUnreachable), SHA256: prev.SHA256}
			}
		}
		if err != nil {
			diags.AddError("Could not push "+plan.ID.ValueString(), err.Error()+"\n\n"+pushAdvice(err, plan, len(results) > 0))
			if len(results) == 0 {
				return // nothing was sent
			}
		}
	}
	m, d := types.MapValueFrom(ctx, hostStatusType, status)
	diags.Append(d...)
	plan.HostStatus = m
}

// allSettled reports whether every host of ts, and only they, hold the file with sum.
func allSettled(ts []target, prior map[string]hostFile, sum string) bool {
	if len(ts) != len(prior) {
		return false
	}
	held := byHost(prior)
	for _, t := range ts {
		if h, ok := held[t.identity()]; !ok || !h.settled(sum) {
			return false
		}
	}
	return true
}

// byHost indexes a prior host_status by host (hostIdentity), so that a host
// a state holds under another spelling of its key (an IPv4-mapped address
// unmapped: 0:10.0.0.1 for ::ffff:10.0.0.1) is neither pushed to again nor
// planned as changed for it.
func byHost(prior map[string]hostFile) map[string]hostFile {
	out := make(map[string]hostFile, len(prior))
	for k, h := range prior {
		out[hostIdentity(k)] = h
	}
	return out
}

// pushInBatches pushes content to ts, one JOB job per rollout batch (one
// for all without a rollout), and returns each host's result by key; the
// error names the hosts that failed and those left untouched.
func (r *configFileResource) pushInBatches(ctx context.Context, plan *configFileModel, ts []target, content []byte) (map[string]gse.JobHostTask, error) {
	if needIDs(ts) {
		// Once for every batch: the host ids come from one CMDB listing.
		if err := r.resolveAll(ctx, plan, ts); err != nil {
			return nil, err
		}
	}
	results := map[string]gse.JobHostTask{}
	file := gse.ConfigFile{Path: plan.Path.ValueString(), Name: plan.FileName.ValueString(), Account: plan.Account.ValueString(), Content: content}
	st := rollout.Step[target]{What: "push", Target: plan.ID, Place: target.place, Settle: settlePush, Run: func(ctx context.Context, batch []target) error {
		res, err := r.run(ctx, plan, batch, func(to gse.JobTargets) (waitFor, error) {
			id, err := r.client.Job.PushConfigFile(ctx, plan.scope(), file, to)
			return func(ctx context.Context) (*gse.JobStatus, error) { return r.client.Job.WaitJob(ctx, plan.scope(), id) }, err
		})
		if err != nil {
			return err
		}
		pe := &pushError{file: plan.ID, total: len(batch)}
		for _, t := range batch {
			res := res[t.key]
			results[t.key] = res
			if !res.OK() {
				pe.failures = append(pe.failures, rollout.Failure[target]{Target: t, Reason: fmt.Sprintf("GSE code %d: JOB host status%s", res.Status, gse.JobHostAdvice(res.Status))})
			}
		}
		if len(pe.failures) > 0 {
			return pe
		}
		return nil
	}}
	_, err := rollout.Run(ctx, plan.Rollout.Expand(), ts, st)
	return results, err
}

// pushError names the hosts of a push job that did not get the file, as
// the configuration gives them.
type pushError struct {
	file     fmt.Stringer // the resource's id
	total    int
	failures []rollout.Failure[target]
}

func (e *pushError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "push_config_file of %s failed on %d of %s:", e.file, len(e.failures), plumbing.HostCount(e.total))
	for _, f := range e.failures {
		b.WriteString("\n  - " + f.String())
	}
	return b.String()
}

// settlePush reads a push's error for the rollout: a *pushError names the
// hosts that failed; any other error is the job's as a whole.
func settlePush(_ []target, err error) ([]rollout.Failure[target], bool) {
	var pe *pushError
	if errors.As(err, &pe) {
		return pe.failures, true
	}
	return nil, false
}
