package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var _ resource.ResourceWithModifyPlan = (*managedProcessResource)(nil)

// ModifyPlan refuses hosts that need gateway_url when it is not set, names
// hosts leaving and joining, keeps host_status when nothing else changes, and
// else keeps the entries of hosts the update leaves alone. The framework marks
// computed attributes unknown whenever Terraform's proposed state differs from
// the prior state, and a reordered or respelled hosts list does, even though
// hostsPlan then plans the prior hosts: without this, such a plan would show an
// update of host_status alone.
func (r *managedProcessResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	planNeedsGateway(ctx, r.client, req.Plan, path.Root("hosts"), &resp.Diagnostics) // common_gateway.go
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	sayHostsMoving(ctx, req.State, req.Plan, &resp.Diagnostics)
	if !sameExcept(req.Plan.Raw, req.State.Raw, "host_status") {
		status, ok, d := plannedStatus(ctx, req.State, req.Plan) // managed_process_plan_status.go
		if resp.Diagnostics.Append(d...); ok {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("host_status"), status)...)
		}
		return
	}
	var status hostStatusMap
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("host_status"), &status)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("host_status"), status)...)
}

// sameExcept reports whether two objects hold equal values in every attribute but skip.
func sameExcept(a, b tftypes.Value, skip string) bool {
	var am, bm map[string]tftypes.Value
	if a.As(&am) != nil || b.As(&bm) != nil {
		return false
	}
	for k, v := range am {
		if k != skip && !v.Equal(bm[k]) {
			return false
		}
	}
	return true
}

// sayHostsMoving names, in a warning, the hosts a plan removes and adds.
// Terraform renders a change of a list nested attribute element by element,
// by position, so one host leaving and another joining reads as
// `~ ip = "10.0.0.3" -> "10.0.0.150"`. A set would render them as - and +,
// but Terraform compares sets of objects pairwise (objchange
// proposedNewNestingSet, AssertObjectCompatible): with 10,000 hosts a create
// that takes 15 s as a list had not finished after 6 minutes as a set.
func sayHostsMoving(ctx context.Context, state tfsdk.State, plan tfsdk.Plan, diags *diag.Diagnostics) {
	var prior, planned hostList
	if state.GetAttribute(ctx, path.Root("hosts"), &prior).HasError() || plan.GetAttribute(ctx, path.Root("hosts"), &planned).HasError() ||
		planned.IsUnknown() || planned.unknown != nil {
		return
	}
	removed, added, _ := diffBy(prior.Hosts(), planned.Hosts(), keyOf(hostModel.api))
	if len(removed) == 0 && len(added) == 0 {
		return
	}
	names := func(hs []hostModel) string {
		const most = 20
		out := each(hs[:min(len(hs), most)], statusKey)
		if len(hs) > most {
			out = append(out, fmt.Sprintf("and %d more", len(hs)-most))
		}
		if len(out) == 0 {
			return "none"
		}
		return strings.Join(out, ", ")
	}
	diags.AddAttributeWarning(path.Root("hosts"), fmt.Sprintf("%d hosts leave, %d join", len(removed), len(added)),
		fmt.Sprintf("Leaving (the process is removed there): %s.\nJoining (the process is registered there): %s.\n"+
			"Terraform shows the change of hosts position by position, so a host leaving and another joining at the same position "+
			"reads as a change of its ip or bk_cloud_id above; no host changes address.", names(removed), names(added)))
}
