package managedprocess

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/lifecycle"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

// stopsOnDelete reports whether removing the process from a host stops it:
// when it is (running, as the state holds it), or was asked to be, running
// (a stop also unhosts).
func stopsOnDelete(running types.Bool, want desired) bool {
	return running.ValueBool() || (want.Running != nil && *want.Running)
}

// sayStopLeavesRunning warns, when a destroy or a host leaving would stop a
// process whose spec has no stop_cmd, that it is unhosted and unregistered
// there and keeps running (lifecycle.StopLeavesRunning): the plan says so
// before the apply leaves processes GSE no longer watches. It reads the
// prior spec alone first: the hosts, packed, only when it warns.
func sayStopLeavesRunning(ctx context.Context, state tfsdk.State, plan tfsdk.Plan, private privateGetter, diags *diag.Diagnostics) {
	var priorSpec spec.Value
	if state.Raw.IsNull() || state.GetAttribute(ctx, path.Root("spec"), &priorSpec).HasError() || !lifecycle.StopLeavesRunning(priorSpec.Expand()) {
		return
	}
	var managed, running types.Bool
	var d diag.Diagnostics
	d.Append(state.GetAttribute(ctx, path.Root("managed"), &managed)...)
	d.Append(state.GetAttribute(ctx, path.Root("running"), &running)...)
	if d.HasError() || !stopsOnDelete(running, loadDesired(ctx, private, managed, running, &d)) {
		return
	}
	var prior hosts.List
	if state.GetAttribute(ctx, path.Root("hosts"), &prior).HasError() {
		return
	}
	leaving := prior.Hosts()
	what := "Destroying this resource"
	if !plan.Raw.IsNull() {
		var planned hosts.List
		if plan.GetAttribute(ctx, path.Root("hosts"), &planned).HasError() || planned.IsUnknown() || planned.Unknown != nil {
			return
		}
		leaving, _, _ = plumbing.DiffBy(leaving, planned.Hosts(), plumbing.KeyOf(hosts.Model.Expand))
		what = "Removing these hosts"
	}
	if len(leaving) == 0 {
		return
	}
	diags.AddAttributeWarning(controlPath.AtName("stop_cmd"), "The process keeps running where it is removed",
		fmt.Sprintf("%s unhosts and unregisters the process on %s but cannot stop it: spec.control.stop_cmd is empty, and GSE's stop (op_type 1) runs it. "+
			"The process keeps running there, no longer watched by the agent. Set stop_cmd and apply first to have it stopped.",
			what, plumbing.HostCount(len(leaving))))
}
