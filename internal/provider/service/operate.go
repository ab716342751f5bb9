package service

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Operate restarts or reloads a gse_service (service: the resource's value,
// `service = gse_service.NAME`) as its release would, without a change of
// its configuration: every instance but those held, in its tiers (a
// restart in descending priority, a reload in ascending, as GSEKit
// orders them), its batches, its canary first and behind its health gate,
// each operation without update_proc_info (GSEKit's restart and reload send
// none). A canary goes on by itself once baked: an invocation has no state
// to be promoted later. progress receives a line per batch. It serves the
// action gse_process_operation (its service target), which the provider
// wires to it.
func Operate(ctx context.Context, c *gse.Client, service types.Dynamic, op gse.OpType, progress func(string)) diag.Diagnostics {
	var diags diag.Diagnostics
	m := operatedModel(ctx, service, &diags)
	if diags.HasError() {
		return diags
	}
	d := expandDesired(ctx, m, false, &diags)
	var hold []string
	diags.Append(m.Hold.ElementsAs(ctx, &hold, false)...)
	if diags.HasError() {
		return diags
	}
	if !d.running {
		diags.AddAttributeError(path.Root("service"), "The service is stopped", "The service has running = false: an operation would start what its configuration keeps stopped. Apply running = true instead.")
		return diags
	}
	a := actRestart
	if op == gse.OpReload {
		a = actReload
	}
	held, unitOf := holdMatcher(hold), isolation(m.Order)
	var ins []*instance
	for _, k := range slices.Sorted(maps.Keys(d.models)) {
		im := d.models[k]
		if held(k) {
			continue
		}
		unit, err := unitOf(im)
		if err != nil {
			diags.AddAttributeError(path.Root("service"), "Instance without what order.isolate_by needs", fmt.Sprintf("instances[%q]: %s", k, err))
			continue
		}
		ports, _ := portsOf(im)
		in := scheduledInstance(k, im, unit, a)
		in.specHeld, in.ports = true, ports
		ins = append(ins, in)
	}
	if diags.HasError() {
		return diags
	}
	st := step{rest: ins}
	if ro := m.Rollout; ro != nil && ro.Canary != nil {
		sel := selectorOf(ctx, c, m, &diags)()
		if sel == nil {
			return diags
		}
		canary := pickCanary(ins, ro.Canary.Size, sel)
		st = step{}
		for _, in := range ins {
			if canary[in] {
				st.canary = append(st.canary, in)
			} else {
				st.rest = append(st.rest, in)
			}
		}
	}
	r := &serviceResource{client: c}
	run := r.runner(m, d.groups, true)
	run.progress = progress
	run.run(ctx, st.schedule(m.Order == nil || m.Order.By.ValueString() != "none", batchSize(m.Rollout)))
	if rel := run.report(); rel.failed > 0 || rel.stopped {
		diags.AddError(fmt.Sprintf("The %s of the service did not finish", a), rel.summary()+"\n\nThe instances that succeeded keep their new pid; invoke the action again once the cause is fixed (every instance runs it again).")
	}
	return diags
}

// operatedModel is the part of a gse_service's value an operation needs:
// its processes (decoded as the resource decodes them), bk_biz_id, running,
// order, rollout, health, hold and agent_abnormal.
func operatedModel(ctx context.Context, service types.Dynamic, diags *diag.Diagnostics) *serviceModel {
	bad := func(why string) {
		diags.AddAttributeError(path.Root("service"), "Not a gse_service", "service takes a gse_service, as service = gse_service.NAME: "+why+".")
	}
	if service.IsUnknown() || service.IsUnderlyingValueUnknown() {
		bad("its value is not known yet (is it created in the same apply?)")
		return nil
	}
	tv, err := service.UnderlyingValue().ToTerraformValue(ctx)
	var attrs map[string]tftypes.Value
	if err == nil {
		err = tv.As(&attrs)
	}
	if err != nil {
		bad("it is not an object: " + err.Error())
		return nil
	}
	sch := serviceSchema(ctx).Attributes
	value := func(name string, typ attr.Type) attr.Value {
		v, ok := attrs[name]
		if !ok {
			bad("it has no " + name)
			return nil
		}
		out, err := typ.ValueFromTerraform(ctx, v)
		if err != nil {
			bad(name + ": " + err.Error())
			return nil
		}
		return out
	}
	m := &serviceModel{}
	procs, _ := value("processes", processesAttr.GetType()).(types.Map)
	m.Processes, err = packMap[processesSchema](procs)
	if diags.HasError() {
		return nil
	}
	if err != nil {
		bad("processes: " + err.Error())
		return nil
	}
	m.BkBizID, _ = value("bk_biz_id", types.Int64Type).(types.Int64)
	m.Running, _ = value("running", types.BoolType).(types.Bool)
	m.Hold, _ = value("hold", types.SetType{ElemType: types.StringType}).(types.Set)
	m.AgentAbnormal, _ = value("agent_abnormal", types.StringType).(types.String)
	for name, into := range map[string]any{"order": &m.Order, "rollout": &m.Rollout, "health": &m.Health} {
		obj, _ := value(name, sch[name].GetType()).(types.Object)
		if diags.HasError() {
			return nil
		}
		if !obj.IsNull() {
			diags.Append(obj.As(ctx, into, basetypes.ObjectAsOptions{})...)
		}
	}
	if diags.HasError() {
		return nil
	}
	return m
}
