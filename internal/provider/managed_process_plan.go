package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var _ resource.ResourceWithModifyPlan = (*managedProcessResource)(nil)

// ModifyPlan refuses hosts that need gateway_url when it is not set, and keeps host_status when nothing else changes. The framework marks
// computed attributes unknown whenever Terraform's proposed state differs from
// the prior state, and a reordered or respelled hosts list does, even though
// hostsPlan then plans the prior hosts: without this, such a plan would show an
// update of host_status alone.
func (r *managedProcessResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	planNeedsGateway(ctx, r.client, req.Plan, path.Root("hosts"), &resp.Diagnostics) // common_gateway.go
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || !sameExcept(req.Plan.Raw, req.State.Raw, "host_status") {
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
