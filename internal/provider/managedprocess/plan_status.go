package managedprocess

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// plannedStatus is host_status in the plan of an update: the prior entry of
// each host the update leaves as it is, so that a change of one spec field
// does not print every host's facts as (known after apply), and an entry of
// unknown facts for each host whose facts it may change. Those are the hosts
// it adds, those whose entry is not in the planned run state (running) or
// hosting (managed), every host when it restarts or reloads the process
// (triggers), and, after a spec change, which hosts the kept hosts again
// (op_type 3), the hosts that were not hosted: hosting a hosted process
// changes none of its facts. Update records the planned entries as they are
// and reads the others (status.Updated). ok is false when the plan leaves too
// much unknown to tell.
func plannedStatus(ctx context.Context, state tfsdk.State, plan tfsdk.Plan) (st status.HostStatus, ok bool, diags diag.Diagnostics) {
	type side struct {
		hosts                           hosts.List
		hostStatus                      status.HostStatus
		managed, running                types.Bool
		restartTriggers, reloadTriggers types.Map
		labels                          types.Map
		spec                            spec.Value
	}
	var prior, next side
	for _, s := range []struct {
		from interface {
			GetAttribute(context.Context, path.Path, any) diag.Diagnostics
		}
		to *side
	}{{state, &prior}, {plan, &next}} {
		for _, a := range []struct {
			at     path.Path
			target any
		}{
			{path.Root("hosts"), &s.to.hosts}, {path.Root("managed"), &s.to.managed}, {path.Root("running"), &s.to.running},
			{path.Root("restart_triggers"), &s.to.restartTriggers}, {path.Root("reload_triggers"), &s.to.reloadTriggers},
			{path.Root("meta").AtName("labels"), &s.to.labels}, {path.Root("spec"), &s.to.spec},
		} {
			diags.Append(s.from.GetAttribute(ctx, a.at, a.target)...)
		}
	}
	diags.Append(state.GetAttribute(ctx, path.Root("host_status"), &prior.hostStatus)...)
	if diags.HasError() || next.hosts.IsUnknown() || next.hosts.Unknown != nil || next.managed.IsUnknown() || next.running.IsUnknown() ||
		next.restartTriggers.IsUnknown() || next.reloadTriggers.IsUnknown() || next.labels.IsUnknown() || next.spec.IsUnknown() || next.spec.Partial {
		return st, false, diags
	}
	changed := func(plan, prior types.Map) bool { return !plan.IsNull() && !plan.Equal(prior) }
	settled := next.running.IsNull() || (!prior.running.IsNull() && prior.running.ValueBool() == next.running.ValueBool())
	every := changed(next.restartTriggers, prior.restartTriggers) || changed(next.reloadTriggers, prior.reloadTriggers)
	// As the update acts (lifecycle's setHosting, setRunning): on the hosts whose entry is
	// not already in the planned hosting or run state.
	drifted := func(e status.HostEntry) bool {
		f := e.Fact()
		return (!settled && !f.RunSettled(next.running.ValueBool())) ||
			(!next.managed.Equal(prior.managed) && !f.HostingSettled(next.managed.ValueBool()))
	}
	rehost := !sameSpec(prior.spec.Decoded, next.spec.Decoded) || !prior.labels.Equal(next.labels)
	unknown := status.HostEntry{Managed: types.BoolUnknown(), Status: types.StringUnknown()}
	entries := make(map[string]status.HostEntry, len(next.hosts.Hosts()))
	for _, h := range next.hosts.Hosts() {
		k := h.StatusKey()
		old, ok := prior.hostStatus.Entries[k]
		switch {
		case every, !ok, drifted(old), rehost && !old.Managed.ValueBool():
			entries[k] = unknown
		default:
			entries[k] = old
		}
	}
	return status.NewHostStatus(entries), true, diags
}

// sameSpec compares two specs as GSE would receive them.
func sameSpec(a, b *spec.Model) bool {
	if a == nil || b == nil {
		return a == b
	}
	return reflect.DeepEqual(a.Expand(), b.Expand())
}
