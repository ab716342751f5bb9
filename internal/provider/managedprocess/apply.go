package managedprocess

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// processSteps are the GSE calls that gse_managed_process's Create, Update and
// Delete are made of (register, operate, teardown), each recording in proven
// what succeeded.
type processSteps struct{ client *gse.Client }

// createInBatches registers the process and brings it to the planned hosting
// and run state (converge), batch by batch, and returns the hosts where it
// may be registered. Hosts of batches never reached stay untouched: not even
// registered.
func (r processSteps) createInBatches(ctx context.Context, meta gse.Meta, spec *gse.Spec, plan *managedProcessModel, hosts []gse.Host, pr *proven) ([]gse.Host, error) {
	var registered []gse.Host
	st := rollout.Step[gse.Host]{What: "create", Target: meta, Place: rollout.HostPlace, Run: func(ctx context.Context, batch []gse.Host) error {
		got, err := r.register(ctx, meta, spec, plan, batch, pr) // through the gateway or ESB, above
		registered = append(registered, got...)
		if err != nil || r.client.Gateway() { // through the gateway, register converges too
			return err
		}
		return r.converge(ctx, meta, spec, plan, got, pr)
	}}
	if plan.Running.ValueBool() && !spec.OneShot() {
		st.NotRunning = &rollout.RunningCheck[gse.Host]{Client: r.client, Query: status.GSENotRunning(r.client, meta)}
	}
	_, err := rollout.Run(ctx, plan.Rollout.Expand(), hosts, st)
	return registered, err
}

// register makes the process exist on hosts with spec, and returns the hosts
// where it may exist, also after an error (never leave an orphan). Through
// ESB that is register_proc_info (converge then hosts and starts it).
//
// GSE 2.0 has no register or unregister (the GSE 2.0 API gateway documents
// neither; an inference from every public caller): an operate carrying the
// full spec (op 0 or 3) creates the process, and a stop (op 1) or unhost
// (op 4) ends its life; the process record stays in GSE, stopped or
// unhosted, as no API removes it. So through the gateway register is one
// operate with the spec: op 0 when running = true, else op 3; then, for
// managed = false, op 1 (running = false) or op 4, so the hosts are
// converged when it returns. Before acting on or trusting the status of a
// host, the provider asks list_agent_state (callers check hosts.AgentsUp
// first): a host whose agent is not running answers 115 forever, and its
// process is absent from status reads.
func (r processSteps) register(ctx context.Context, meta gse.Meta, spec *gse.Spec, plan *managedProcessModel, hosts []gse.Host, pr *proven) ([]gse.Host, error) {
	if !r.client.Gateway() {
		done, err := r.client.Proc.RegisterProcInfo(ctx, meta, hosts, spec)
		if err != nil {
			done = mayExist(hosts, done, err, func(int) bool { return true })
		}
		return done, err
	}
	op := gse.OpHost
	if plan.Running.ValueBool() {
		op = gse.OpStart
	}
	if _, err := r.operate(ctx, meta, spec, op, hosts, pr); err != nil {
		return mayExist(hosts, nil, err, func(code int) bool { return code == gse.HostAgentAbnormal }), err
	}
	var err error
	switch {
	case !plan.Running.IsNull() && !plan.Running.ValueBool():
		_, err = r.operate(ctx, meta, spec, gse.OpStop, hosts, pr)
	case !plan.Managed.ValueBool():
		_, err = r.operate(ctx, meta, spec, gse.OpUnhost, hosts, pr)
	}
	return hosts, err
}

// mayExist is the part of targets on which a failed create may have left the
// process, so that none is left that Terraform does not know of: all of them
// when the outcome is unknown (a deadline, a cut connection), but those no
// request GSE can have acted on reached (gse.HostsError.NotActed); done when the
// request was refused as a whole (by GSE, by the gateway before GSE saw it, or
// before it was sent because an agent is down); and, when GSE answered per
// host, all but the hosts whose code refused says were turned away before the
// spec was taken. register_proc_info turns a host away outright (such as 850,
// someone else's process); an operate with the spec only with 117 (agent
// unknown or abnormal), as any other failure (a start command that failed)
// comes after the spec was taken.
func mayExist(targets, done []gse.Host, err error, refused func(code int) bool) []gse.Host {
	var he *gse.HostsError
	var ae *gse.APIError
	switch {
	case errors.As(err, &he):
		out := slices.Clone(he.NotActed) // never reached GSE
		for _, f := range he.Failures {
			if refused(f.Code) {
				out = append(out, f.Host)
			}
		}
		return plumbing.SelectBy(targets, gse.Host.Key, plumbing.Each(out, gse.Host.Key), false)
	case errors.As(err, &ae) && !ae.MayHaveActed(), errors.As(err, new(*hosts.AgentsDownError)):
		return done
	}
	return targets
}

// converge brings freshly registered hosts to the planned hosting and run
// state with one task: a start also hosts the process (operate_proc_v2), so
// running = true is op 0 alone; otherwise op 3 hosts it, and running = false
// (which needs managed = false) stops it.
func (r processSteps) converge(ctx context.Context, meta gse.Meta, spec *gse.Spec, plan *managedProcessModel, hosts []gse.Host, pr *proven) error {
	var err error
	switch {
	case plan.Running.ValueBool():
		_, err = r.operate(ctx, meta, spec, gse.OpStart, hosts, pr)
	case !plan.Running.IsNull():
		_, err = r.operate(ctx, meta, spec, gse.OpStop, hosts, pr)
	case plan.Managed.ValueBool():
		_, err = r.operate(ctx, meta, spec, gse.OpHost, hosts, pr)
	}
	return err
}

// updateInSteps takes the hosts and the spec from prior to plan in order:
// unregister removed hosts, send a changed spec to kept ones, register added
// ones, then hosting, run state and triggers. Each step that succeeds is
// written into applied at once, so an error leaves applied true. Every step
// that disrupts the process goes in the batches of plan.Rollout; a trigger
// that reaches only some hosts is finished by the next apply (triggers).
func (r processSteps) updateInSteps(ctx context.Context, meta gse.Meta, plan, prior, applied *managedProcessModel, pr *proven, triggers triggerProgresses) error {
	u := &update{r: r, meta: meta, spec: plan.Spec.Expand(), ro: plan.Rollout.Expand(), plan: plan, prior: prior, applied: applied, pr: pr}
	u.removed, u.added, u.kept = plumbing.DiffBy(plumbing.Each(prior.Hosts.Hosts(), hosts.Model.Expand), plumbing.Each(plan.Hosts.Hosts(), hosts.Model.Expand), gse.Host.Key)
	u.specChanged = !sameSpec(prior.Spec.Decoded, plan.Spec.Decoded) || !prior.Meta.Labels.Equal(plan.Meta.Labels)
	if err := hosts.Reachable(ctx, r.client, slices.Concat(u.removed, u.added, u.kept)); err != nil {
		return err // hosts need gateway_url, or their agent is down
	}
	for _, step := range []func(context.Context) error{u.removeHosts, u.sendSpec, u.addHosts, u.setHosting, u.setRunning} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return u.runTriggers(ctx, triggers)
}

// update is one Update on its way from prior to plan: the steps of
// updateInSteps share the hosts it diffed and write what succeeded into applied.
type update struct {
	r                    processSteps
	meta                 gse.Meta
	spec                 *gse.Spec
	ro                   *rollout.Settings
	plan, prior, applied *managedProcessModel
	pr                   *proven
	removed, added, kept []gse.Host
	specChanged          bool
}

// removeHosts tears the process down on the removed hosts.
func (u *update) removeHosts(ctx context.Context) error {
	if len(u.removed) == 0 {
		return nil
	}
	var gone []gse.Host
	_, err := rollout.Run(ctx, u.ro, u.removed, rollout.Step[gse.Host]{What: "removal of hosts", Target: u.meta, Place: rollout.HostPlace, Run: func(ctx context.Context, batch []gse.Host) error {
		g, err := u.r.teardown(ctx, u.meta, u.prior.Spec.Expand(), batch, u.prior.Running.ValueBool())
		gone = append(gone, g...)
		return err
	}})
	u.applied.Hosts = hosts.NewList(plumbing.SelectBy(u.applied.Hosts.Hosts(), plumbing.KeyOf(hosts.Model.Expand), plumbing.Each(gone, gse.Host.Key), false))
	return err
}

// sendSpec sends a changed spec to the kept hosts (update_proc_info).
func (u *update) sendSpec(ctx context.Context) error {
	if !u.specChanged {
		return nil
	}
	_, err := rollout.Run(ctx, u.ro, u.kept, rollout.Step[gse.Host]{What: "spec update (update_proc_info)", Target: u.meta, Place: rollout.HostPlace, Run: func(ctx context.Context, batch []gse.Host) error {
		_, err := u.r.client.Proc.UpdateProcInfo(ctx, u.meta, batch, u.spec)
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
	register := u.r.register
	if u.r.client.Gateway() {
		register = u.r.createInBatches
		if err := refuseLive(ctx, u.r.client, u.meta, u.added); err != nil {
			return err
		}
	}
	done, err := register(ctx, u.meta, u.spec, u.plan, u.added, u.pr)
	u.applied.Hosts = hosts.NewList(slices.Concat(u.applied.Hosts.Hosts(), plumbing.SelectBy(u.plan.Hosts.Hosts(), plumbing.KeyOf(hosts.Model.Expand), plumbing.Each(done, gse.Host.Key), true)))
	if err != nil {
		return err
	}
	if u.r.client.Gateway() {
		u.added = nil // created converged (see register)
	}
	return nil
}

// setHosting hosts new hosts, and kept ones after a spec change (all of
// them) or those not hosted; or unhosts the kept ones still hosted. Hosts
// about to be started need no op 3: a start hosts.
func (u *update) setHosting(ctx context.Context) error {
	switch {
	case u.plan.Managed.ValueBool():
		hostNew := u.added
		if u.plan.Running.ValueBool() {
			hostNew = nil
		}
		kept := u.kept
		if !u.specChanged {
			// Those not hosted, but for those setRunning is about to start.
			kept = u.drifted(func(e status.HostEntry) bool {
				return hostingSettled(e, true) || (u.plan.Running.ValueBool() && !runSettled(e, true))
			})
		}
		if _, err := u.r.rollOperate(ctx, u.ro, u.meta, u.spec, gse.OpHost, slices.Concat(hostNew, kept), u.pr); err != nil {
			return err
		}
	case u.prior.Managed.ValueBool():
		kept := u.drifted(func(e status.HostEntry) bool { return hostingSettled(e, false) })
		if _, err := u.r.rollOperate(ctx, u.ro, u.meta, u.spec, gse.OpUnhost, kept, u.pr); err != nil {
			return err
		}
	}
	u.applied.Managed = u.plan.Managed
	// A new spec is in effect once sent and hosted with (op 3 carries its
	// monitor policy); until then the state keeps the old one, so the next
	// apply sends both again.
	if u.specChanged {
		u.applied.Spec, u.applied.Meta.Labels = u.plan.Spec, u.plan.Meta.Labels
	}
	return nil
}

// setRunning starts or stops the added hosts, and the kept ones whose
// host_status does not show the planned run state: a repair acts only on the
// hosts that drifted, and its rollout batches only them.
func (u *update) setRunning(ctx context.Context) error {
	if !u.plan.Running.IsNull() {
		starting := u.plan.Running.ValueBool()
		op := gse.OpStop
		if starting {
			op = gse.OpStart
		}
		var kept []gse.Host
		if settled := !u.prior.Running.IsNull() && u.prior.Running.ValueBool() == starting; !settled {
			kept = u.drifted(func(e status.HostEntry) bool { return runSettled(e, starting) })
		}
		if _, err := u.r.rollOperate(ctx, u.ro, u.meta, u.spec, op, slices.Concat(u.added, kept), u.pr); err != nil {
			return err
		}
	}
	u.applied.Running = u.plan.Running
	return nil
}

// runTriggers runs restart and reload on every planned host when their
// triggers changed.
func (u *update) runTriggers(ctx context.Context, triggers triggerProgresses) error {
	all := plumbing.Each(u.plan.Hosts.Hosts(), hosts.Model.Expand)
	for _, t := range []struct {
		name        string
		op          gse.OpType
		plan, prior types.Map
		applied     *types.Map
	}{
		{"restart", gse.OpRestart, u.plan.RestartTriggers, u.prior.RestartTriggers, &u.applied.RestartTriggers},
		{"reload", gse.OpReload, u.plan.ReloadTriggers, u.prior.ReloadTriggers, &u.applied.ReloadTriggers},
	} {
		if !t.plan.IsNull() && !t.plan.Equal(t.prior) {
			if err := u.r.runTrigger(ctx, u.ro, u.meta, u.spec, t.name, t.op, t.plan, all, triggers, u.pr); err != nil {
				return err
			}
		}
		delete(triggers, t.name)
		*t.applied = t.plan
	}
	return nil
}

// drifted are the kept hosts whose prior host_status entry does not satisfy
// settled: those the refresh found otherwise, and those it has no entry for.
func (u *update) drifted(settled func(status.HostEntry) bool) []gse.Host {
	var out []gse.Host
	for _, h := range u.kept {
		if e, ok := u.prior.HostStatus.Entries[h.Address()]; !ok || !settled(e) {
			out = append(out, h)
		}
	}
	return out
}

// sameSpec compares two specs as GSE would receive them.
func sameSpec(a, b *spec.Model) bool {
	if a == nil || b == nil {
		return a == b
	}
	return reflect.DeepEqual(a.Expand(), b.Expand())
}

const rolloutTriggersKey = "rollout_triggers"

// triggerProgress is how a restart or reload trigger that did not reach
// every host is finished. The state keeps the prior trigger value, so the
// next plan shows the trigger still to apply; private state (key
// rolloutTriggersKey) records, per trigger, the value being rolled out and
// the hosts it already reached. The next apply runs it only on the other
// hosts, and only while the trigger still has that value: a new value must
// reach every host again. Per-host bookkeeping in private state rather than
// a state attribute: it is the provider's memory of an unfinished step, not
// something a user configures or should see drift on.
type triggerProgress struct {
	Want string   `json:"want"` // the trigger map being rolled out, as JSON
	Done []string `json:"done"` // gse.Host.Key of the hosts it reached
}

// triggerProgresses are the unfinished triggers by name ("restart", "reload").
type triggerProgresses map[string]triggerProgress

func loadTriggerProgress(ctx context.Context, p privateGetter, diags *diag.Diagnostics) triggerProgresses {
	b, d := p.GetKey(ctx, rolloutTriggersKey)
	diags.Append(d...)
	out := triggerProgresses{}
	if len(b) > 0 {
		_ = json.Unmarshal(b, &out) // unreadable: every host is owed the trigger again
	}
	return out
}

func (t triggerProgresses) save(ctx context.Context, p privateSetter) diag.Diagnostics {
	if len(t) == 0 {
		return p.SetKey(ctx, rolloutTriggersKey, nil)
	}
	b, _ := json.Marshal(t)
	return p.SetKey(ctx, rolloutTriggersKey, b)
}

// triggerValue is a trigger map as JSON with sorted keys, to compare values across applies.
func triggerValue(m types.Map) string {
	vals := make(map[string]string, len(m.Elements()))
	for k, v := range m.Elements() {
		vals[k] = v.String()
	}
	b, _ := json.Marshal(vals)
	return string(b)
}

// runTrigger runs a changed trigger's op on the hosts it still owes and
// records how far it got in progress.
func (r processSteps) runTrigger(ctx context.Context, ro *rollout.Settings, meta gse.Meta, spec *gse.Spec, name string, op gse.OpType, value types.Map, all []gse.Host, progress triggerProgresses, pr *proven) error {
	want := triggerValue(value)
	prev, resumed := progress[name]
	hosts := all
	if resumed && prev.Want == want {
		hosts = plumbing.SelectBy(all, gse.Host.Key, prev.Done, false)
	} else {
		prev = triggerProgress{Want: want}
	}
	done, err := r.rollOperate(ctx, ro, meta, spec, op, hosts, pr)
	if err != nil {
		prev.Done = append(prev.Done, plumbing.Each(done, gse.Host.Key)...)
		progress[name] = prev
		return err
	}
	delete(progress, name)
	return nil
}

// teardown stops (stop) or unhosts the process on hosts, then unregisters it.
// It trusts the refreshed state that the process is registered there, so it
// reads no status first: one task per step. A stop also unhosts (operate_proc_v2);
// only hosts answering 829 (not running) are unhosted with op 4 after it. When
// the first step fails on some hosts, their status is read then (the state may
// be stale, as after destroy -refresh=false): hosts where the process is gone
// are skipped, any other failure stands. It returns the hosts now clear of it.
func (r processSteps) teardown(ctx context.Context, meta gse.Meta, spec *gse.Spec, hosts []gse.Host, stop bool) ([]gse.Host, error) {
	var pr proven
	op := gse.OpUnhost
	if stop {
		op = gse.OpStop
	}
	out, err := r.operate(ctx, meta, spec, op, hosts, &pr)
	present, gone := hosts, []gse.Host(nil)
	if err != nil {
		var he *gse.HostsError
		if !errors.As(err, &he) || len(he.Pending) > 0 || len(he.Failures) == 0 {
			return nil, err
		}
		failed := make([]gse.Host, len(he.Failures))
		for i, f := range he.Failures {
			failed[i] = f.Host
		}
		registered, serr := status.Find(ctx, r.client, meta, failed)
		if serr != nil {
			return nil, err
		}
		for _, h := range failed {
			if _, ok := registered[h.Key()]; !ok {
				gone = append(gone, h)
			}
		}
		if len(gone) < len(failed) {
			return gone, err
		}
		present = plumbing.SelectBy(hosts, gse.Host.Key, plumbing.Each(gone, gse.Host.Key), false)
	}
	if stop {
		var notRunning []gse.Host
		for _, o := range out.Hosts {
			if o.ErrorCode == gse.HostNotRunning {
				notRunning = append(notRunning, o.Host)
			}
		}
		if _, err := r.operate(ctx, meta, spec, gse.OpUnhost, plumbing.SelectBy(present, gse.Host.Key, plumbing.Each(notRunning, gse.Host.Key), true), &pr); err != nil {
			return gone, err
		}
	}
	if len(present) == 0 || r.client.Gateway() { // GSE 2.0 has no unregister: a stop or unhost ends the process
		return append(gone, present...), nil
	}
	done, err := r.client.Proc.UnregisterProcInfo(ctx, meta, present)
	return append(gone, done...), err
}

// rollOperate performs op on hosts batch by batch (see rollout.run) through
// operate, the path every operation of gse_managed_process takes, and returns
// the hosts where it succeeded. wait_running applies to the operations that
// leave the process running (gse.OpInfo.Starts).
func (r processSteps) rollOperate(ctx context.Context, ro *rollout.Settings, meta gse.Meta, spec *gse.Spec, op gse.OpType, hosts []gse.Host, pr *proven) ([]gse.Host, error) {
	st := rollout.Step[gse.Host]{What: rollout.Verb(op), Target: meta, Place: rollout.HostPlace, Run: func(ctx context.Context, batch []gse.Host) error {
		_, err := r.operate(ctx, meta, spec, op, batch, pr)
		return err
	}}
	if op.Info().Starts && !spec.OneShot() { // a one-shot exits by design
		st.NotRunning = &rollout.RunningCheck[gse.Host]{Client: r.client, Query: status.GSENotRunning(r.client, meta)}
	}
	return rollout.Run(ctx, ro, hosts, st)
}

// operate performs op on hosts and waits for it. Without a spec (an imported
// resource before its first apply) it uses operate_proc, which acts on the
// registered spec. What succeeded is noted in pr.
func (r processSteps) operate(ctx context.Context, meta gse.Meta, spec *gse.Spec, op gse.OpType, hosts []gse.Host, pr *proven) (*gse.Outcome, error) {
	if len(hosts) == 0 {
		return &gse.Outcome{}, nil
	}
	req := gse.OperateRequest{Meta: meta, Hosts: hosts, Op: op, Spec: spec}
	var out *gse.Outcome
	var err error
	if spec == nil {
		out, err = r.client.Proc.OperateV1(ctx, req)
	} else {
		out, err = r.client.Proc.Operate(ctx, req)
	}
	if err == nil {
		pr.note(hosts, op, spec.OneShot())
	}
	return out, err
}

// appliedStatus is host_status after an apply that succeeded: what its tasks
// proved (proven.value: a start proves running and hosted, a stop stopped and
// unhosted), and for the hosts where they proved nothing (a host op says
// nothing of the run state, a one-shot start nothing either; a register
// nothing at all) what get_proc_status_v2 reads. So the state holds what the
// next refresh reads, and `plan -refresh-only` right after an apply reports
// no change, without a status read after the usual create or update. When
// that read fails, the apply still stands: the proven facts are recorded,
// with a warning, and the next refresh reads the rest.
func (r processSteps) appliedStatus(ctx context.Context, meta gse.Meta, list []hosts.Model, pr *proven, diags *diag.Diagnostics) status.HostStatus {
	st := pr.value(list)
	var read []hosts.Model
	for _, h := range list {
		if e := st.Entries[statusKey(h)]; e.Status.IsNull() || e.Managed.IsNull() {
			read = append(read, h)
		}
	}
	if len(read) == 0 {
		return st
	}
	byKey, err := status.Find(ctx, r.client, meta, plumbing.Each(read, hosts.Model.Expand))
	if err != nil {
		diags.AddWarning(fmt.Sprintf("Status of process %s not read after the apply", meta),
			fmt.Sprintf("The apply succeeded; reading the status of the hosts where its tasks proved no run state or hosting (get_proc_status_v2) failed: %v. "+
				"host_status records what the apply's tasks proved, and the next refresh reads the rest.", err))
		return st
	}
	entries := maps.Clone(st.Entries)
	maps.Copy(entries, hostStatusValue(read, byKey).Entries) // a host not found keeps what its tasks proved
	return status.NewHostStatus(entries)
}

// updatedStatus is host_status after an update that succeeded: the entries
// the plan knew (plannedStatus), as Terraform requires, and the others read
// (appliedStatus).
func updatedStatus(planned, read status.HostStatus) status.HostStatus {
	entries := make(map[string]status.HostEntry, len(read.Entries))
	for k, e := range read.Entries {
		if p, ok := planned.Entries[k]; ok && !p.Status.IsUnknown() {
			e = p
		}
		entries[k] = e
	}
	return status.NewHostStatus(entries)
}

// keepDownStatus carries the prior host_status of hosts whose agent is down
// into current: what GSE cannot say now is not drift.
func keepDownStatus(current, prior status.HostStatus, list []hosts.Model, down map[string]gse.AgentState) status.HostStatus {
	if len(down) == 0 {
		return current
	}
	entries := maps.Clone(current.Entries)
	for _, h := range list {
		if _, isDown := down[h.Expand().Key()]; isDown {
			if old, ok := prior.Entries[statusKey(h)]; ok {
				entries[statusKey(h)] = old
			}
		}
	}
	return status.NewHostStatus(entries)
}
