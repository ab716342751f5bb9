package lifecycle

import (
	"context"
	"slices"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// Update takes the hosts and the spec from prior to next in order:
// unregister removed hosts, send a changed spec to kept ones, register added
// ones, then hosting, run state and triggers. Each step that succeeds is
// recorded in the Applied it returns, also with an error. Every step that
// disrupts the process goes in the batches of next.Rollout; a trigger that
// reaches only some hosts is finished by the next apply (progress, see
// TriggerProgress).
func (s Steps) Update(ctx context.Context, next Desired, prior Prior, pr *Proven, progress TriggerProgresses) (Applied, error) {
	u := &update{s: s, next: next, prior: prior, pr: pr}
	u.removed, u.added, u.kept = plumbing.DiffBy(prior.Hosts, next.Hosts, gse.Host.Key)
	u.specChanged = !prior.sameSpec(next)
	if err := hosts.Reachable(ctx, s.Client, slices.Concat(u.removed, u.added, u.kept)); err != nil {
		return u.applied, err // hosts need gateway_url, or their agent is down
	}
	for _, step := range []func(context.Context) error{u.removeHosts, u.sendSpec, u.addHosts, u.setHosting, u.setRunning} {
		if err := step(ctx); err != nil {
			return u.applied, err
		}
	}
	err := u.runTriggers(ctx, progress)
	return u.applied, err
}

// update is one Update on its way from prior to next: its steps share the
// hosts it diffed and record what succeeded in applied.
type update struct {
	s                    Steps
	next                 Desired
	prior                Prior
	applied              Applied
	pr                   *Proven
	removed, added, kept []gse.Host
	specChanged          bool
}

// removeHosts tears the process down on the removed hosts.
func (u *update) removeHosts(ctx context.Context) error {
	if len(u.removed) == 0 {
		return nil
	}
	var gone []gse.Host
	_, err := rollout.Run(ctx, u.next.Rollout, u.removed, rollout.Step[gse.Host]{Place: rollout.HostPlace, What: "removal of hosts", Target: u.next.Meta, Run: func(ctx context.Context, batch []gse.Host) error {
		g, err := u.s.teardown(ctx, u.next.Meta, u.prior.Spec, batch, u.prior.running())
		gone = append(gone, g...)
		return err
	}})
	u.applied.Cleared = gone
	return err
}

// sendSpec sends a changed spec to the kept hosts (update_proc_info).
func (u *update) sendSpec(ctx context.Context) error {
	if !u.specChanged {
		return nil
	}
	_, err := rollout.Run(ctx, u.next.Rollout, u.kept, rollout.Step[gse.Host]{Place: rollout.HostPlace, What: "spec update (update_proc_info)", Target: u.next.Meta, Run: func(ctx context.Context, batch []gse.Host) error {
		_, err := u.s.Client.Proc.UpdateProcInfo(ctx, u.next.Meta, batch, u.next.Spec)
		return err
	}})
	return err
}

// addHosts registers the process on the added hosts.
func (u *update) addHosts(ctx context.Context) error {
	if len(u.added) == 0 {
		return nil
	}
	// Through the gateway a register starts or hosts the process, so it
	// rolls out like a create; through ESB it disrupts nothing.
	register := u.s.register
	if u.s.Client.Gateway() {
		register = u.s.createInBatches
		if err := refuseLive(ctx, u.s.Client, u.next.Meta, u.added); err != nil {
			return err
		}
	}
	done, err := register(ctx, u.next, u.added, u.pr)
	u.applied.Added = done
	if err != nil {
		return err
	}
	if u.s.Client.Gateway() {
		u.added = nil // created converged (see register)
	}
	return nil
}

// setHosting hosts new hosts, and kept ones after a spec change (all of
// them) or those not hosted; or unhosts the kept ones still hosted. Hosts
// about to be started need no op 3: a start hosts.
func (u *update) setHosting(ctx context.Context) error {
	switch {
	case u.next.Managed:
		hostNew := u.added
		if u.next.running() {
			hostNew = nil
		}
		kept := u.kept
		if !u.specChanged {
			// Those not hosted, but for those setRunning is about to start.
			kept = u.drifted(func(f status.Fact) bool {
				return f.HostingSettled(true) || (u.next.running() && !f.RunSettled(true))
			})
		}
		if _, err := u.s.rollOperate(ctx, u.next, gse.OpHost, slices.Concat(hostNew, kept), u.pr); err != nil {
			return err
		}
	case u.prior.Managed:
		kept := u.drifted(func(f status.Fact) bool { return f.HostingSettled(false) })
		if _, err := u.s.rollOperate(ctx, u.next, gse.OpUnhost, kept, u.pr); err != nil {
			return err
		}
	}
	// A new spec is in effect once sent and hosted with (op 3 carries its
	// monitor policy); until then the state keeps the old one, so the next
	// apply sends both again.
	u.applied.Hosting, u.applied.Spec = true, u.specChanged
	return nil
}

// setRunning starts or stops the added hosts, and the kept ones whose
// host_status does not show the planned run state: a repair acts only on the
// hosts that drifted, and its rollout batches only them.
func (u *update) setRunning(ctx context.Context) error {
	if u.next.Running != nil {
		starting := *u.next.Running
		op := gse.OpStop
		if starting {
			op = gse.OpStart
		}
		var kept []gse.Host
		if settled := u.prior.Running != nil && *u.prior.Running == starting; !settled {
			kept = u.drifted(func(f status.Fact) bool { return f.RunSettled(starting) })
		}
		if _, err := u.s.rollOperate(ctx, u.next, op, slices.Concat(u.added, kept), u.pr); err != nil {
			return err
		}
	}
	u.applied.Running = true
	return nil
}

// drifted are the kept hosts whose prior host_status entry does not satisfy
// settled: those the refresh found otherwise, and those it has no entry for.
func (u *update) drifted(settled func(status.Fact) bool) []gse.Host {
	var out []gse.Host
	for _, h := range u.kept {
		if f, ok := u.prior.Status[h.Key()]; !ok || !settled(f) {
			out = append(out, h)
		}
	}
	return out
}
