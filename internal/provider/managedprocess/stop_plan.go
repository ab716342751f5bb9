package managedprocess

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/lifecycle"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// stopsOnDelete reports whether removing the process from a host stops it:
// when it is, or was asked to be, running (a stop also unhosts).
func stopsOnDelete(state managedProcessModel, want desired) bool {
	return state.Running.ValueBool() || (want.Running != nil && *want.Running)
}

// sayStopLeavesRunning warns, when a destroy or a host leaving would stop a
// process whose spec has no stop_cmd, that it is unhosted and unregistered
// there and keeps running (lifecycle.StopLeavesRunning): the plan says so
// before the apply leaves processes GSE no longer watches.
func sayStopLeavesRunning(ctx context.Context, state tfsdk.State, plan tfsdk.Plan, private privateGetter, diags *diag.Diagnostics) {
	var prior managedProcessModel
	if state.Raw.IsNull() || state.Get(ctx, &prior).HasError() || !lifecycle.StopLeavesRunning(prior.Spec.Expand()) {
		return
	}
	var d diag.Diagnostics
	if !stopsOnDelete(prior, loadDesired(ctx, private, prior.Managed, prior.Running, &d)) {
		return
	}
	leaving := prior.Hosts.Hosts()
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
