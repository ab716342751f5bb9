package provider

import (
	"context"
	"reflect"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Update converges step by step. applied starts as the prior state and records
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

	applied := prior
	applied.Timeouts = plan.Timeouts
	pr := proven{prior: prior.HostStatus}
	if err := r.updateInSteps(ctx, meta, &plan, &prior, &applied, &pr); err != nil {
		addAPIError(&resp.Diagnostics, "update", meta, err,
			"The state records the steps that succeeded; fix the cause above and apply again to finish.")
	} else {
		applied = plan
	}
	applied.HostStatus = pr.value(applied.Hosts)
	resp.Diagnostics.Append(saveDesired(ctx, resp.Private, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &applied)...)
}

// updateInSteps takes the hosts and the spec from prior to plan in order:
// unregister removed hosts, send a changed spec to kept ones, register added
// ones, then hosting, run state and triggers. Each step that succeeds is
// written into applied at once, so an error leaves applied true.
func (r *managedProcessResource) updateInSteps(ctx context.Context, meta gse.Meta, plan, prior, applied *managedProcessModel, pr *proven) error {
	spec := plan.Spec.api()
	removed, added, kept := diffBy(apiHosts(prior.Hosts), apiHosts(plan.Hosts), gse.Host.Key)
	specChanged := !sameSpec(prior.Spec, plan.Spec) || !prior.Meta.Labels.Equal(plan.Meta.Labels)
	if err := reachable(ctx, r.client, slices.Concat(removed, added, kept)); err != nil {
		return err // common_gateway.go: hosts need gateway_url, or their agent is down
	}

	if len(removed) > 0 {
		gone, err := r.teardown(ctx, meta, prior.Spec.api(), removed, prior.Running.ValueBool())
		applied.Hosts = selectBy(applied.Hosts, hostKey, hostKeys(gone), false)
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
		done, err := r.register(ctx, meta, spec, plan, added, pr)
		applied.Hosts = append(applied.Hosts, selectBy(plan.Hosts, hostKey, hostKeys(done), true)...)
		if err != nil {
			return err
		}
		if r.client.Gateway() {
			added = nil // created converged (see register)
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
		if _, err := r.operate(ctx, meta, spec, gse.OpHost, appendIf(hostNew, kept, rehost), pr); err != nil {
			return err
		}
	case prior.Managed.ValueBool():
		if _, err := r.operate(ctx, meta, spec, gse.OpUnhost, kept, pr); err != nil {
			return err
		}
	}
	applied.Managed = plan.Managed
	// A new spec is in effect once sent and hosted with (op 3 carries its
	// monitor policy); until then the state keeps the old one, so the next
	// apply sends both again.
	if specChanged {
		applied.Spec, applied.Meta.Labels = plan.Spec, plan.Meta.Labels
	}

	if !plan.Running.IsNull() {
		op := gse.OpStop
		if starting {
			op = gse.OpStart
		}
		settled := !prior.Running.IsNull() && prior.Running.ValueBool() == starting
		if _, err := r.operate(ctx, meta, spec, op, appendIf(added, kept, !settled), pr); err != nil {
			return err
		}
	}
	applied.Running = plan.Running

	all := apiHosts(plan.Hosts)
	for _, t := range []struct {
		op          gse.OpType
		plan, prior types.Map
		applied     *types.Map
	}{
		{gse.OpRestart, plan.RestartTriggers, prior.RestartTriggers, &applied.RestartTriggers},
		{gse.OpReload, plan.ReloadTriggers, prior.ReloadTriggers, &applied.ReloadTriggers},
	} {
		if !t.plan.IsNull() && !t.plan.Equal(t.prior) {
			if _, err := r.operate(ctx, meta, spec, t.op, all, pr); err != nil {
				return err
			}
		}
		*t.applied = t.plan
	}
	return nil
}

// appendIf returns base, plus extra when cond holds.
func appendIf(base, extra []gse.Host, cond bool) []gse.Host {
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
