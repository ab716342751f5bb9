package service

import (
	"context"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// instancesValue is models as the instances attribute.
func instancesValue(models map[string]instanceModel, diags *diag.Diagnostics) packedMap[instancesSchema] {
	vals := make(map[string]attr.Value, len(models))
	for k, m := range models {
		vals[k] = m.object()
	}
	v, d := types.MapValue(instanceType, vals)
	diags.Append(d...)
	p, err := packMap[instancesSchema](v)
	if err != nil {
		diags.AddError("Could not encode instances", err.Error())
	}
	return p
}

// scheduleValue is tiers as the schedule attribute.
func scheduleValue(ctx context.Context, tiers []tier, diags *diag.Diagnostics) types.List {
	out := make([]tierModel, len(tiers))
	for i, t := range tiers {
		out[i] = tierModel{Tier: types.Int64Value(int64(i + 1)), Direction: types.StringValue(direction(t.descending)), Priority: types.Int64PointerValue(t.priority),
			Canary: types.BoolValue(t.canary)}
		for _, b := range t.batches {
			keys := make([]string, len(b))
			for j, in := range b {
				keys[j] = in.key
			}
			out[i].Batches = append(out[i].Batches, keys)
		}
		if out[i].Batches == nil {
			out[i].Batches = [][]string{}
		}
	}
	v, d := types.ListValueFrom(ctx, tierType, out)
	diags.Append(d...)
	return v
}

func direction(descending bool) string {
	if descending {
		return "descending"
	}
	return "ascending"
}

// counts are failed_count and pending_count of models: failed, and with an
// action left to run (pending, or absent where it was never sent).
func counts(models map[string]instanceModel) (failed, pending types.Int64) {
	var f, p int64
	for _, m := range models {
		switch {
		case m.Status.ValueString() == statusFailed:
			f++
		case resumable(m):
			p++
		}
	}
	return types.Int64Value(f), types.Int64Value(p)
}

// namespaces is id: the namespaces of the groups, sorted, comma-separated.
func namespaces(groups map[string]*group) types.String {
	seen := map[string]bool{}
	for _, g := range groups {
		seen[g.meta.Namespace] = true
	}
	out := ""
	for i, ns := range slices.Sorted(maps.Keys(seen)) {
		if i > 0 {
			out += ","
		}
		out += ns
	}
	return types.StringValue(out)
}

// unknownOutcome marks what an apply will find of m.
func (m instanceModel) unknownOutcome() instanceModel {
	m.Status, m.Code, m.Message, m.PID = types.StringUnknown(), types.Int64Unknown(), types.StringUnknown(), types.Int64Unknown()
	return m
}

// withOutcome is m with what an apply found.
func (m instanceModel) withOutcome(o outcome) instanceModel {
	m.Status, m.Code, m.Message, m.PID = types.StringValue(o.status), types.Int64Value(o.code), types.StringValue(o.message), types.Int64Value(o.pid)
	return m
}

// cleared is m with no action of its own: tier, batch and action null.
func (m instanceModel) cleared() instanceModel {
	m.Tier, m.Batch, m.Action = types.Int64Null(), types.Int64Null(), types.StringNull()
	return m
}
