package provider

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Update converges step by step. cur starts as the prior state and records
// each step that succeeded, so a failure leaves a state that says what exists
// (hosts registered or possibly registered, spec in effect, triggers run);
// runtime drift (hosting, run state) is caught by the next refresh anyway.
func (r *managedProcessResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior managedProcessModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	ctx, cancel := deadline(ctx, plan.Timeouts.Update, &resp.Diagnostics)
	defer cancel()
	meta, d := plan.Meta.api(ctx)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}

	cur := prior
	cur.Timeouts = plan.Timeouts
	pr := proven{prior: prior.HostStatus}
	if err := r.update(ctx, meta, &plan, &prior, &cur, &pr); err != nil {
		addAPIError(&resp.Diagnostics, "update", meta, err,
			"The state records the steps that succeeded; fix the cause above and apply again to finish.")
	} else {
		cur = plan
	}
	cur.HostStatus = pr.value(cur.Hosts)
	resp.Diagnostics.Append(saveDesired(ctx, resp.Private, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &cur)...)
}

func (r *managedProcessResource) update(ctx context.Context, meta gse.Meta, plan, prior, cur *managedProcessModel, pr *proven) error {
	spec := plan.Spec.api()
	removed, added, kept := diffBy(apiHosts(prior.Hosts), apiHosts(plan.Hosts), gse.Host.Addr)
	specChanged := !sameSpec(prior.Spec, plan.Spec) || !prior.Meta.Labels.Equal(plan.Meta.Labels)

	if len(removed) > 0 {
		gone, err := r.teardown(ctx, meta, prior.Spec.api(), removed, prior.Running.ValueBool())
		cur.Hosts = selectBy(cur.Hosts, hostAddr, addrs(gone), false)
		if err != nil {
			return err
		}
	}
	if specChanged {
		if len(kept) > 0 {
			if _, err := r.client.Proc.UpdateProcInfo(ctx, meta, kept, spec); err != nil {
				return err
			}
		}
	}
	if len(added) > 0 {
		done, err := r.client.Proc.RegisterProcInfo(ctx, meta, added, spec)
		if err != nil {
			done = mayExist(added, done, err)
		}
		cur.Hosts = append(cur.Hosts, selectBy(plan.Hosts, hostAddr, addrs(done), true)...)
		if err != nil {
			return err
		}
	}

	// Hosting: new hosts, and kept ones after a spec change or when they were
	// not hosted. New hosts that are about to be started need no op 3: a start hosts.
	rehost := specChanged || !prior.Managed.ValueBool()
	starting := plan.Running.ValueBool()
	switch {
	case plan.Managed.ValueBool():
		hostNew := added
		if starting {
			hostNew = nil
		}
		if _, err := r.run(ctx, meta, spec, gse.OpHost, withIf(hostNew, kept, rehost), pr); err != nil {
			return err
		}
	case prior.Managed.ValueBool():
		if _, err := r.run(ctx, meta, spec, gse.OpUnhost, kept, pr); err != nil {
			return err
		}
	}
	cur.Managed = plan.Managed
	// A new spec is in effect once sent and hosted with (op 3 carries its
	// monitor policy); until then the state keeps the old one, so the next
	// apply sends both again.
	if specChanged {
		cur.Spec, cur.Meta.Labels = plan.Spec, plan.Meta.Labels
	}

	if !plan.Running.IsNull() {
		op := gse.OpStop
		if starting {
			op = gse.OpStart
		}
		settled := !prior.Running.IsNull() && prior.Running.ValueBool() == starting
		if _, err := r.run(ctx, meta, spec, op, withIf(added, kept, !settled), pr); err != nil {
			return err
		}
	}
	cur.Running = plan.Running

	all := apiHosts(plan.Hosts)
	for _, t := range []struct {
		op          gse.OpType
		plan, prior types.Map
		cur         *types.Map
	}{
		{gse.OpRestart, plan.RestartTriggers, prior.RestartTriggers, &cur.RestartTriggers},
		{gse.OpReload, plan.ReloadTriggers, prior.ReloadTriggers, &cur.ReloadTriggers},
	} {
		if !t.plan.IsNull() && !t.plan.Equal(t.prior) {
			if _, err := r.run(ctx, meta, spec, t.op, all, pr); err != nil {
				return err
			}
		}
		*t.cur = t.plan
	}
	return nil
}

// withIf returns base, plus extra when cond holds.
func withIf(base, extra []gse.Host, cond bool) []gse.Host {
	if !cond {
		return base
	}
	return append(append([]gse.Host(nil), base...), extra...)
}

// sameSpec compares two specs as GSE would receive them.
func sameSpec(a, b *specModel) bool {
	if a == nil || b == nil {
		return a == b
	}
	return reflect.DeepEqual(a.api(), b.api())
}
