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
	triggers := loadTriggerProgress(ctx, req.Private, &resp.Diagnostics)
	if err := r.updateInSteps(ctx, meta, &plan, &prior, &applied, &pr, triggers); err != nil {
		addAPIError(&resp.Diagnostics, "update", meta, err,
			"The state records the steps that succeeded; fix the cause above and apply again to finish.")
	} else {
		applied = plan
	}
	applied.HostStatus = pr.value(applied.Hosts)
	resp.Diagnostics.Append(saveDesired(ctx, resp.Private, &plan)...)
	resp.Diagnostics.Append(triggers.save(ctx, resp.Private)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &applied)...)
}

// updateInSteps takes the hosts and the spec from prior to plan in order:
// unregister removed hosts, send a changed spec to kept ones, register added
// ones, then hosting, run state and triggers. Each step that succeeds is
// written into applied at once, so an error leaves applied true. Every step
// that disrupts the process goes in the batches of plan.Rollout; a trigger
// that reaches only some hosts is finished by the next apply (triggers).
func (r *managedProcessResource) updateInSteps(ctx context.Context, meta gse.Meta, plan, prior, applied *managedProcessModel, pr *proven, triggers triggerProgresses) error {
	spec := plan.Spec.api()
	ro := plan.Rollout.plan()
	removed, added, kept := diffBy(each(prior.Hosts, hostModel.api), each(plan.Hosts, hostModel.api), gse.Host.Key)
	specChanged := !sameSpec(prior.Spec, plan.Spec) || !prior.Meta.Labels.Equal(plan.Meta.Labels)
	if err := reachable(ctx, r.client, slices.Concat(removed, added, kept)); err != nil {
		return err // common_gateway.go: hosts need gateway_url, or their agent is down
	}

	if len(removed) > 0 {
		var gone []gse.Host
		_, err := ro.run(ctx, removed, rolloutStep{what: "removal of hosts", target: meta, run: func(ctx context.Context, batch []gse.Host) error {
			g, err := r.teardown(ctx, meta, prior.Spec.api(), batch, prior.Running.ValueBool())
			gone = append(gone, g...)
			return err
		}})
		applied.Hosts = selectBy(applied.Hosts, hostKey, each(gone, gse.Host.Key), false)
		if err != nil {
			return err
		}
	}
	if specChanged {
		_, err := ro.run(ctx, kept, rolloutStep{what: "spec update (update_proc_info)", target: meta, run: func(ctx context.Context, batch []gse.Host) error {
			_, err := r.client.Proc.UpdateProcInfo(ctx, meta, batch, spec)
			return err
		}})
		if err != nil {
			return err
		}
	}
	if len(added) > 0 {
		// Through the gateway a register starts or hosts the process, so it
		// rolls out like a create; through ESB it disrupts nothing.
		register := r.register
		if r.client.Gateway() {
			register = r.createInBatches
		}
		done, err := register(ctx, meta, spec, plan, added, pr)
		applied.Hosts = append(applied.Hosts, selectBy(plan.Hosts, hostKey, each(done, gse.Host.Key), true)...)
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
		if _, err := r.rollOperate(ctx, ro, meta, spec, gse.OpHost, appendIf(hostNew, kept, rehost), pr); err != nil {
			return err
		}
	case prior.Managed.ValueBool():
		if _, err := r.rollOperate(ctx, ro, meta, spec, gse.OpUnhost, kept, pr); err != nil {
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
		if _, err := r.rollOperate(ctx, ro, meta, spec, op, appendIf(added, kept, !settled), pr); err != nil {
			return err
		}
	}
	applied.Running = plan.Running

	all := each(plan.Hosts, hostModel.api)
	for _, t := range []struct {
		name        string
		op          gse.OpType
		plan, prior types.Map
		applied     *types.Map
	}{
		{"restart", gse.OpRestart, plan.RestartTriggers, prior.RestartTriggers, &applied.RestartTriggers},
		{"reload", gse.OpReload, plan.ReloadTriggers, prior.ReloadTriggers, &applied.ReloadTriggers},
	} {
		if !t.plan.IsNull() && !t.plan.Equal(t.prior) {
			if err := r.runTrigger(ctx, ro, meta, spec, t.name, t.op, t.plan, all, triggers, pr); err != nil {
				return err
			}
		}
		delete(triggers, t.name)
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
