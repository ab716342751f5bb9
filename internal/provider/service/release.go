package service

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// release is what an apply or a destroy did.
type release struct {
	sent            bool // a call was sent that may have acted
	failed, pending int
	stopped         bool // a batch was left unrun: max_fail_percentage, a failed tier or the timeout
	lines           []string
}

// summary lists the instances that failed or did not run, with why.
func (rel *release) summary() string {
	head := fmt.Sprintf("%s failed and %d did not run:", plumbing.Count(rel.failed, "instance"), rel.pending)
	lines := rel.lines
	if len(lines) > 20 {
		lines = append(slices.Clone(lines[:20]), fmt.Sprintf("... and %d more (see instances)", len(rel.lines)-20))
	}
	return head + "\n  - " + strings.Join(lines, "\n  - ")
}

// release runs the plan's schedule over the planned instances (and the
// prior ones it removes) and sets in m what it found.
func (r *serviceResource) release(ctx context.Context, m *serviceModel, p *prior, cfgFiles packedMap[configFilesSchema], diags *diag.Diagnostics) *release {
	d := expandDesired(ctx, m, false, diags)
	fs := expandFiles(m.ConfigFiles.Map(diags), cfgFiles, diags)
	planned := instancesOf(m.Instances.Map(diags))
	var sched []tierModel
	diags.Append(m.Schedule.ElementsAs(ctx, &sched, false)...)
	if diags.HasError() {
		return nil
	}
	groups := maps.Clone(p.groups)
	maps.Copy(groups, d.groups)
	run := r.runner(m, groups, d.running)
	if m.Rollout != nil && m.Rollout.AutoRevert.ValueBool() {
		run.revert = revertOf(p.groups)
	}
	run.run(ctx, tiersOf(sched, filled(planned, d.models), p, fs, isolation(m.Order), specHeld(d, p)))
	models := map[string]instanceModel{}
	for k, in := range planned {
		if o, ok := run.out[k]; ok {
			in = in.withOutcome(o)
			in.Config = configValue(fs.want(k, in.Group.ValueString()))
			if o.undone() {
				in.Config = configValue(configOf(p.models[k]))
			}
		}
		models[k] = in
	}
	for k, pm := range p.models {
		if _, kept := planned[k]; kept {
			continue
		}
		if o, ok := run.out[k]; ok && o.status != statusAbsent {
			models[k] = pm.withOutcome(o)
		}
	}
	m.Instances = instancesValue(models, diags)
	m.FailedCount, m.PendingCount = counts(models)
	if m.CanaryRevision.IsUnknown() {
		m.CanaryRevision = p.canaryRevision
		if run.canaryPassed {
			m.CanaryRevision = m.Revision
		}
	}
	return run.report()
}

// teardown removes every instance of the state, and leaves in s those it
// could not.
func (r *serviceResource) teardown(ctx context.Context, s *serviceModel, p *prior, diags *diag.Diagnostics) *release {
	var acted []*instance
	unitOf := isolation(s.Order)
	for _, k := range slices.Sorted(maps.Keys(p.models)) {
		pm := p.model(k)
		unit, _ := unitOf(pm)
		acted = append(acted, scheduledInstance(k, pm, unit, actRemove))
	}
	run := r.runner(s, p.groups, false)
	run.deadline = 0 // progress_deadline is a release's: a destroy has its timeout
	run.run(ctx, buildSchedule(acted, s.Order == nil || s.Order.By.ValueString() != "none", batchSize(s.Rollout)))
	left := map[string]instanceModel{}
	for k, pm := range p.models {
		if o := run.out[k]; o.status != statusAbsent {
			left[k] = pm.withOutcome(o)
		}
	}
	s.Instances = instancesValue(left, diags)
	s.FailedCount, s.PendingCount = counts(left)
	return run.report()
}

// runner is a runner of m's rollout and health settings over groups.
func (r *serviceResource) runner(m *serviceModel, groups map[string]*group, running bool) *runner {
	run := &runner{steps: r.steps(), groups: groups, running: running, gate: gateSettings{deadline: 5 * time.Minute},
		skipDown: m.AgentAbnormal.ValueString() == "skip", probes: probesOf(m), scope: gse.BizScope(m.BkBizID.ValueInt64())}
	if ro := m.Rollout; ro != nil {
		run.maxFail = ro.MaxFailPercentage.ValueInt64()
		run.pause, _ = time.ParseDuration(ro.Pause.ValueString())
		run.deadline, _ = time.ParseDuration(ro.ProgressDeadline.ValueString())
		if ro.Canary != nil {
			run.bake, _ = time.ParseDuration(ro.Canary.Bake.ValueString())
		}
	}
	if h := m.Health; h != nil {
		run.gate.runningFor, _ = time.ParseDuration(h.RunningFor.ValueString())
		if d, err := time.ParseDuration(h.HealthyDeadline.ValueString()); err == nil {
			run.gate.deadline = d
		}
	}
	return run
}

// tiersOf is the plan's schedule as the runner takes it: each key the
// planned instance (or, removed, the prior one) with its planned action.
func tiersOf(sched []tierModel, planned map[string]instanceModel, p *prior, fs files, unitOf func(instanceModel) (string, error), held func(k, group string) bool) []tier {
	out := make([]tier, len(sched))
	for i, t := range sched {
		out[i] = tier{descending: t.Direction.ValueString() == "descending", priority: t.Priority.ValueInt64Pointer(), canary: t.Canary.ValueBool()}
		for bi, keys := range t.Batches {
			var b []*instance
			for _, k := range keys {
				m, ok := planned[k]
				a := action(m.Action.ValueString())
				if !ok {
					m, a = p.model(k), actRemove
				}
				unit, _ := unitOf(m)
				ports, _ := portsOf(m)
				in := scheduledInstance(k, m, unit, a)
				in.absent, in.specHeld, in.ports, in.tier, in.batch = absentIn(p, k), held(k, in.group), ports, i+1, bi+1
				if a != actRemove {
					in.files = fs.changed(k, in.group, configOf(p.models[k]))
				}
				b = append(b, in)
			}
			out[i].batches = append(out[i].batches, b)
		}
	}
	return out
}

// report is what the run did.
func (run *runner) report() *release {
	rel := &release{sent: run.sent, stopped: run.stopped != "" || len(run.blocked) > 0}
	for _, k := range slices.Sorted(maps.Keys(run.out)) {
		o := run.out[k]
		switch {
		case !o.undone():
			continue
		case o.status == statusFailed:
			rel.failed++
		default:
			rel.pending++
		}
		rel.lines = append(rel.lines, fmt.Sprintf("%s: %s%s", k, o.status, codeText(o)))
	}
	return rel
}

func codeText(o outcome) string {
	if o.code != 0 {
		return fmt.Sprintf(" (GSE code %d): %s", o.code, o.message)
	}
	return ": " + o.message
}

// specHeld reports whether the host of instance k holds its group's spec:
// the state says the last apply sent it there (the instance's last action
// is done) and the plan does not change it. An operation on it then sends
// no update_proc_info: GSEKit's reload and restart send none either.
func specHeld(d *desired, p *prior) func(k, group string) bool {
	return func(k, gk string) bool {
		pm, ok := p.models[k]
		pg, dg := p.groups[gk], d.groups[gk]
		return ok && !resumable(pm) && pm.Status.ValueString() != statusAbsent && pg != nil && dg != nil && sameSpec(pg, dg)
	}
}
