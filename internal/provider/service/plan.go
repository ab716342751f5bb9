package service

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// ModifyPlan plans the release: each instance's action, the schedule of
// tiers and batches, and the revision, all known at plan; what the release
// will find (status, code, message, pid, the counts) is unknown where it acts.
func (r *serviceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	processes, known := knownInputs(ctx, req.Plan)
	if !known {
		return
	}
	var m serviceModel
	var given packedMap[instancesSchema]
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	m.Processes = processes // the same value, decoded already
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("instances"), &given)...)
	cfgFiles := configFiles(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || m.Processes.IsUnknown() || given.IsUnknown() || !elementsKnown(m.ConfigFiles.Map(&resp.Diagnostics)) {
		return
	}
	d := expandDesired(ctx, &m, !given.IsNull(), &resp.Diagnostics)
	fs := expandFiles(m.ConfigFiles.Map(&resp.Diagnostics), cfgFiles, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() {
		checkPorts(&m, d, &resp.Diagnostics)
		checkFiles(fs, d, &resp.Diagnostics)
	}
	p := priorOf(ctx, req.State, d, &m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	var hold []string
	resp.Diagnostics.Append(m.Hold.ElementsAs(ctx, &hold, false)...)
	checkHold(hold, d, p, &resp.Diagnostics)
	held := holdMatcher(hold)
	pl := planActions(d, p, m.RestartTriggers.String(), m.ReloadTriggers.String(), held)
	pl.addFileActions(d, p, fs, held)
	acted := scheduled(d, p, pl.actions, isolation(m.Order), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	rev := revision(d, m.RestartTriggers, m.ReloadTriggers, fs)
	st := stepOf(&m, p, pl.released, acted, rev, selectorOf(ctx, r.client, &m, &resp.Diagnostics), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	tiers := st.schedule(m.Order == nil || m.Order.By.ValueString() != "none", batchSize(m.Rollout))
	r.fillPlan(ctx, &m, d, p, slices.Concat(st.canary, st.rest), tiers, fs, held, st.waiting, &resp.Diagnostics)
	m.Revision, m.CanaryRevision = types.StringValue(rev), st.canaryRevision
	warnWaiting(st.waiting, &resp.Diagnostics)
	warnDrift(pl.drifted, d, p, &resp.Diagnostics)
	warnFileDrift(ctx, req.State, m.ConfigFiles.Map(&resp.Diagnostics), d, p, fs, pl.actions, &resp.Diagnostics)
	m.ConfigFiles = writeOnlyCleared(ctx, m.ConfigFiles, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

// knownInputs is the plan's processes, and whether they are known: the plan
// is made of them (computed attributes are unknown in every plan that
// changes anything).
func knownInputs(ctx context.Context, plan tfsdk.Plan) (packedMap[processesSchema], bool) {
	var v packedMap[processesSchema]
	if d := plan.GetAttribute(ctx, path.Root("processes"), &v); d.HasError() || v.IsUnknown() {
		return v, false
	}
	var diags diag.Diagnostics
	tv, err := v.Map(&diags).ToTerraformValue(ctx)
	return v, err == nil && !diags.HasError() && tv.IsFullyKnown()
}

// elementsKnown says whether m and each of its elements are known (their
// attributes may not be): a file not known yet is planned once it is.
func elementsKnown(m types.Map) bool {
	if m.IsUnknown() {
		return false
	}
	for _, e := range m.Elements() {
		if e.IsUnknown() {
			return false
		}
	}
	return true
}

// fillPlan sets what the plan computes: instances with their planned
// action, tier and batch, schedule, revision, the counts and id.
func (r *serviceResource) fillPlan(ctx context.Context, m *serviceModel, d *desired, p *prior, acted []*instance, tiers []tier, fs files, held func(string) bool,
	waits map[string]waiting, diags *diag.Diagnostics) {
	byKey := map[string]*instance{}
	for _, in := range acted {
		byKey[in.key] = in
	}
	models := map[string]instanceModel{}
	for k, in := range d.models {
		switch a, ok := byKey[k], false; {
		case a != nil:
			in.Tier, in.Batch, in.Action = types.Int64Value(int64(a.tier)), types.Int64Value(int64(a.batch)), types.StringValue(string(a.action))
			in = in.unknownOutcome()
			in.Config = types.MapUnknown(types.StringType)
		case waits[k].why != "":
			// Held as the state will hold it: pending (absent where it
			// is), its action to come, what its host has now.
			pm := p.models[k]
			o := pendingOutcome(absentIn(p, k), waits[k].why)
			o.pid = pm.PID.ValueInt64()
			in = in.cleared().withOutcome(o)
			in.Action, in.Config = types.StringValue(string(waits[k].action)), configValue(configOf(pm))
		default:
			var pm instanceModel
			if pm, ok = p.models[k]; ok {
				in.Tier, in.Batch, in.Action, in.Status, in.Code, in.Message, in.PID = pm.Tier, pm.Batch, pm.Action, pm.Status, pm.Code, pm.Message, pm.PID
			} else {
				in = in.cleared().withOutcome(outcome{status: statusAbsent, message: "held"})
			}
			in.Config = configValue(fs.want(k, in.Group.ValueString()))
			if held(k) {
				in.Config = configValue(configOf(pm))
			}
		}
		if !d.given {
			in = in.withoutFacts()
		}
		models[k] = in
	}
	m.Instances = instancesValue(models, diags)
	m.ID = namespaces(d.groups)
	if len(acted) == 0 && p.schedule != nil {
		m.Schedule = *p.schedule
	} else {
		m.Schedule = scheduleValue(ctx, tiers, diags)
	}
	if len(acted) == 0 {
		m.FailedCount, m.PendingCount = counts(models)
	} else {
		m.FailedCount, m.PendingCount = types.Int64Unknown(), types.Int64Unknown()
	}
}

// scheduled are the instances with an action, as the schedule takes them.
func scheduled(d *desired, p *prior, actions map[string]action, unitOf func(instanceModel) (string, error), diags *diag.Diagnostics) []*instance {
	var out []*instance
	for _, k := range slices.Sorted(maps.Keys(actions)) {
		m, ok := d.models[k]
		if !ok {
			m = p.model(k)
		}
		unit, err := unitOf(m)
		if err != nil {
			diags.AddAttributeError(path.Root("instances").AtMapKey(k), "Instance without what order.isolate_by needs", fmt.Sprintf("instances[%q]: %s", k, err))
			continue
		}
		in := scheduledInstance(k, m, unit, actions[k])
		in.absent = absentIn(p, k)
		out = append(out, in)
	}
	return out
}

// isolation is order.isolate_by as a function of an instance.
func isolation(o *orderModel) func(instanceModel) (string, error) {
	by := "service"
	if o != nil && !o.IsolateBy.IsNull() {
		by = o.IsolateBy.ValueString()
	}
	return func(m instanceModel) (string, error) {
		var id types.Int64
		switch by {
		case "service":
			return "", nil
		case "host":
			return "host " + m.Host.StatusKey(), nil
		case "set":
			id = m.BkSetID
		case "module":
			id = m.BkModuleID
		}
		if id.IsNull() || id.IsUnknown() {
			return "", fmt.Errorf("isolate_by = %q needs its bk_%s_id: pass processes = gse_cmdb_processes.<name>.groups read with_instances = true (each host with its ids), or give bk_%s_id in processes' hosts or in instances", by, by, by)
		}
		return fmt.Sprintf("%s %d", by, id.ValueInt64()), nil
	}
}

func batchSize(r *rolloutModel) types.String {
	if r == nil {
		return types.StringNull()
	}
	return r.BatchSize
}

// checkHold fails the plan for a hold entry that matches no instance: a
// typo would release what it meant to hold.
func checkHold(hold []string, d *desired, p *prior, diags *diag.Diagnostics) {
	for _, h := range hold {
		held := holdMatcher([]string{h})
		if !anyKeyOf(d.models, held) && !anyKeyOf(p.models, held) {
			diags.AddAttributeError(path.Root("hold"), "hold matches no instance",
				fmt.Sprintf("hold entry %q is neither the key of an instance nor the start of one, so it would hold nothing. Instance keys are {namespace}/{name}@{host}, such as %q.", h, anyKey(d)))
		}
	}
}

// anyKeyOf reports whether a key of m satisfies f.
func anyKeyOf(m map[string]instanceModel, f func(string) bool) bool {
	for k := range m {
		if f(k) {
			return true
		}
	}
	return false
}

func anyKey(d *desired) string {
	keys := slices.Sorted(maps.Keys(d.models))
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

// warnWaiting says what the release holds back, and what lets it go on.
func warnWaiting(waits map[string]waiting, diags *diag.Diagnostics) {
	byWhy := map[string][]string{}
	for k, w := range waits {
		byWhy[w.why] = append(byWhy[w.why], k)
	}
	for _, why := range slices.Sorted(maps.Keys(byWhy)) {
		keys := slices.Sorted(slices.Values(byWhy[why]))
		diags.AddWarning(plumbing.Count(len(keys), "instance")+" of the release held back",
			"These stay pending, and the apply sends them nothing: "+why+"."+listed("\n  ", keys))
	}
}

// warnDrift names the instances a refresh found otherwise than asked, whose
// repair alone the plan holds.
func warnDrift(drifted []string, d *desired, p *prior, diags *diag.Diagnostics) {
	if len(drifted) == 0 {
		return
	}
	lines := make([]string, len(drifted))
	for i, k := range drifted {
		lines[i] = fmt.Sprintf("%s: found %s, planned to %s", k, p.models[k].Status.ValueString(), repair(p.models[k], d.running))
	}
	diags.AddWarning(plumbing.Count(len(drifted), "instance")+" drifted",
		"The refresh found these instances otherwise than the configuration asks; the plan repairs them alone:\n  "+strings.Join(lines, "\n  "))
}
