package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

var _ resource.ResourceWithModifyPlan = (*processOperationResource)(nil)

// ModifyPlan refuses, at plan time, GSE target hosts only the gateway can
// address when gateway_url is not set (see needsGateway).
func (r *processOperationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	planNeedsGateway(ctx, r.client, req.Plan, path.Root("gse").AtName("hosts"), &resp.Diagnostics)
}
