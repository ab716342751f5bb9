package processoperation

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

var _ resource.ResourceWithModifyPlan = (*processOperationResource)(nil)

// ModifyPlan refuses, at plan time, GSE target hosts only the gateway can
// address when gateway_url is not set (see hosts.NeedsGateway), and a JOB target
// when endpoint is not (see plumbing.NeedsESB).
func (r *processOperationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	hosts.PlanNeedsGateway(ctx, r.client, req.Plan, path.Root("gse").AtName("hosts"), &resp.Diagnostics)
	var job types.Object
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("job"), &job)...)
	if !job.IsNull() {
		plumbing.NeedsESB(r.client, "gse_process_operation with a job target", &resp.Diagnostics)
	}
}
