package jobmanagedprocess

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// jobSteps are the operate_process calls that gse_job_managed_process's
// Create, Read and Update are made of.
type jobSteps struct{ client *gse.Client }

// forgetWithoutJOB is the way out for a process hosted before JOB lost its process APIs.
const forgetWithoutJOB = "To forget the process without JOB, remove it from the state (terraform state rm)."

// jobMayExist lists the IPs where a register may have taken effect: those that
// succeeded and those still pending at the deadline.
func jobMayExist(out *gse.JobOutcome, err error) []gse.JobIP {
	ips := out.Succeeded()
	var hostsErr *gse.HostsError
	if errors.As(err, &hostsErr) {
		for _, h := range hostsErr.Pending {
			ips = append(ips, h.JobIP())
		}
	}
	return ips
}

// ipStatus reads ip_status; hosted, when not nil, receives the drift
// judgement of each IP (status.StillHosted). A failed query leaves a warning, not an error.
func (r jobSteps) ipStatus(ctx context.Context, m *jobManagedProcessModel, hosted map[string]bool, diags *diag.Diagnostics) types.Map {
	elems := map[string]attr.Value{}
	if m.PidPath.ValueString() == "" || len(m.IPList) == 0 {
		return types.MapValueMust(status.JobIPType, elems)
	}
	states, err := status.FindJob(ctx, r.client, m.scope(), m.process(m.ips()))
	switch {
	case gse.KindOf(err) == gse.KindRemoved:
		plumbing.AddAPIError(diags, "query the status of", m.target(), err, forgetWithoutJOB)
	case err != nil:
		diags.AddWarning("Could not query the process status on every IP", err.Error()+"\n\nIPs whose status is unknown are kept as they are.")
	}
	for _, ip := range m.ips() {
		o, ok := states[ip.Key()]
		if ok {
			elems[ip.Host().Address()] = status.JobIPOf(o, true).Value()
		}
		if hosted != nil {
			hosted[ip.Key()] = status.StillHosted(o, ok)
		}
	}
	return types.MapValueMust(status.JobIPType, elems)
}

// converge unregisters removed IPs, re-registers kept ones when the definition
// changed, then registers new ones, recording each step in applied.
func (r jobSteps) converge(ctx context.Context, plan, prior, applied *jobManagedProcessModel) error {
	removed, added, kept := plumbing.DiffBy(prior.ips(), plan.ips(), gse.JobIP.Key)
	// Framework values compare by state and value, so == is Equal field by field.
	changed := prior.JobDefinition != plan.JobDefinition || !prior.Contact.Equal(plan.Contact) || !prior.Account.Equal(plan.Account)

	// Each step goes in the batches of plan's rollout; prior's definition for removals.
	withRollout := *prior
	withRollout.Rollout = plan.Rollout
	if len(removed) > 0 {
		err := r.hostInBatches(ctx, &withRollout, gse.OpUnhost, removed, func(out *gse.JobOutcome, _ error) {
			applied.IPList = plumbing.SelectBy(applied.IPList, plumbing.KeyOf(hosts.Ref.Expand), plumbing.Each(out.Succeeded(), gse.JobIP.Key), false)
		})
		if err != nil {
			return err
		}
	}
	if changed {
		if len(kept) > 0 {
			// A partial re-register leaves the prior definition in the state: the next apply sends the new one again.
			if err := r.hostInBatches(ctx, plan, gse.OpHost, kept, func(*gse.JobOutcome, error) {}); err != nil {
				return err
			}
		}
		applied.JobDefinition, applied.Contact, applied.Account = plan.JobDefinition, plan.Contact, plan.Account
	}
	if len(added) > 0 {
		err := r.hostInBatches(ctx, plan, gse.OpHost, added, func(out *gse.JobOutcome, err error) {
			applied.IPList = append(applied.IPList, plumbing.SelectBy(plan.IPList, plumbing.KeyOf(hosts.Ref.Expand), plumbing.Each(jobMayExist(out, err), gse.JobIP.Key), true)...)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// hostInBatches sends operate_process op (gse.OpHost or gse.OpUnhost) for ips
// of m batch by batch (see rollout.Run); acted receives each batch's outcome,
// so the caller records what took effect as it happens. wait_running applies
// to registering hosting (the agent pulls a resident process up).
func (r jobSteps) hostInBatches(ctx context.Context, m *jobManagedProcessModel, op gse.OpType, ips []gse.JobIP, acted func(*gse.JobOutcome, error)) error {
	scope := m.scope()
	st := rollout.Step[gse.JobIP]{What: op.Info().API, Target: m.target(), Place: rollout.JobIPPlace, Run: func(ctx context.Context, batch []gse.JobIP) error {
		out, err := r.client.Job.Operate(ctx, scope, op, []gse.JobProcess{m.process(batch)})
		acted(out, err)
		return err
	}}
	if op == gse.OpHost {
		st.NotRunning = &rollout.RunningCheck[gse.JobIP]{Client: r.client, Query: func(ctx context.Context, batch []gse.JobIP) (map[string]string, error) {
			return status.JobNotRunning(ctx, r.client, scope, m.process(batch))
		}}
	}
	_, err := rollout.Run(ctx, m.Rollout.Expand(), ips, st)
	return err
}
