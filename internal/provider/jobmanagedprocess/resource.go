package jobmanagedprocess

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
)

var (
	_ resource.ResourceWithConfigure      = (*jobManagedProcessResource)(nil)
	_ resource.ResourceWithImportState    = (*jobManagedProcessResource)(nil)
	_ resource.ResourceWithValidateConfig = (*jobManagedProcessResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*jobManagedProcessResource)(nil)
	_ resource.ResourceWithUpgradeState   = (*jobManagedProcessResource)(nil)
)

// jobManagedProcessResource hosts one process definition on a set of IPs
// through JOB's operate_process (op_type 3 and 4).
type jobManagedProcessResource struct{ client *gse.Client }

// NewResource is gse_job_managed_process.
func NewResource() resource.Resource { return &jobManagedProcessResource{} }

// steps are the operate_process calls the CRUD is made of.
func (r *jobManagedProcessResource) steps() jobSteps { return jobSteps{client: r.client} }

func (r *jobManagedProcessResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job_managed_process"
}

func (r *jobManagedProcessResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = plumbing.ClientFrom(req.ProviderData, &resp.Diagnostics)
	plumbing.NeedsESB(r.client, "gse_job_managed_process", &resp.Diagnostics)
}

func (r *jobManagedProcessResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = jobManagedProcessSchema(ctx)
}

// UpgradeState moves states of schema version 0 (hosting through manage_proc)
// to 1 (operate_process): proc_owner, manage_proc's contact, becomes contact,
// and account, new, is root as JOB used it. Every other attribute is kept; a
// state without pid_path (imported without it) loads, and its delete says how
// to complete it.
func (r *jobManagedProcessResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: {StateUpgrader: upgradeJobManagedProcessV0}}
}

// ValidateConfig: a periodic process (type 0) needs its period.
func (r *jobManagedProcessResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var typ, cycle types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("type"), &typ)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("cycle_time"), &cycle)...)
	rollout.ValidateSize(ctx, req.Config, path.Root("rollout"), rollout.ElementCount(ctx, req.Config, path.Root("ip_list")), &resp.Diagnostics)
	if typ.IsUnknown() || cycle.IsUnknown() {
		return
	}
	if !typ.IsNull() && typ.ValueInt64() == 0 && cycle.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("cycle_time"), "cycle_time is required for a periodic process",
			"type = 0 (periodic) needs cycle_time, the period in seconds: JOB would send 0. Set it, or choose type = 1 (resident) or 2 (one-shot).")
	}
}

// ModifyPlan keeps the prior ip_status when nothing else changes. The
// framework marks computed attributes unknown as soon as the configuration
// differs from the state, before ip_list's plan modifier finds that only the
// order differed; without this a reordered ip_list would still plan an update.
func (r *jobManagedProcessResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var prior types.Map
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("ip_status"), &prior)...)
	unchanged := resp.Plan
	resp.Diagnostics.Append(unchanged.SetAttribute(ctx, path.Root("ip_status"), prior)...)
	if !resp.Diagnostics.HasError() && unchanged.Raw.Equal(req.State.Raw) {
		resp.Plan = unchanged
	}
}

func (r *jobManagedProcessResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan jobManagedProcessModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := plumbing.Deadline(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID = types.StringValue(plan.id())
	var registered []gse.JobIP
	err := r.steps().hostInBatches(ctx, &plan, gse.OpHost, plan.ips(), func(out *gse.JobOutcome, err error) {
		registered = append(registered, jobMayExist(out, err)...)
	})
	if err != nil {
		plumbing.AddAPIError(&resp.Diagnostics, "create", plan.target(), err,
			"The IPs where hosting may be registered are kept in the state, and the resource is tainted: the next apply unregisters and registers it again.")
		plan.IPList = plumbing.SelectBy(plan.IPList, plumbing.KeyOf(hosts.Ref.Expand), plumbing.Each(registered, gse.JobIP.Key), true)
		if len(plan.IPList) == 0 {
			return
		}
	}
	plan.IPStatus = r.steps().ipStatus(ctx, &plan, nil, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *jobManagedProcessResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m jobManagedProcessModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := plumbing.Deadline(ctx, m.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() || m.PidPath.ValueString() == "" {
		// Imported without pid_path: operate_process cannot query without it.
		return
	}
	hosted := map[string]bool{}
	m.IPStatus = r.steps().ipStatus(ctx, &m, hosted, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	kept := m.IPList[:0:0]
	for _, ip := range m.IPList {
		if hosted[ip.Expand().Key()] {
			kept = append(kept, ip)
		}
	}
	m.IPList = kept
	if len(m.IPList) == 0 {
		resp.Diagnostics.AddWarning(fmt.Sprintf("JOB process %s is no longer hosted", m.ID.ValueString()),
			"No IP hosts the process any more, so it was removed from the state; the next apply registers it again.")
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Update converges step by step, as gse_managed_process does: applied starts as
// the prior state and records each step that succeeded, so a failure leaves a
// state that says what is registered where, with which definition.
func (r *jobManagedProcessResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior jobManagedProcessModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := plumbing.Deadline(ctx, plan.Timeouts.Update, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}

	applied := prior
	applied.Timeouts = plan.Timeouts
	if err := r.steps().converge(ctx, &plan, &prior, &applied); err != nil {
		plumbing.AddAPIError(&resp.Diagnostics, "update", plan.target(), err,
			"The state records the steps that succeeded; fix the cause above and apply again to finish.")
	} else {
		applied = plan
	}
	applied.IPStatus = r.steps().ipStatus(ctx, &applied, nil, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &applied)...)
}

func (r *jobManagedProcessResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m jobManagedProcessModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := plumbing.Deadline(ctx, m.Timeouts.Delete, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	if m.PidPath.IsNull() || m.SetupPath.IsNull() {
		// An import of an earlier version could leave them out; JOB refuses a process without them.
		resp.Diagnostics.AddError(fmt.Sprintf("Could not delete process %s", m.target()),
			"The state has no setup_path or pid_path, which JOB requires to unregister hosting. Apply once with both in the configuration "+
				"(the state records them), then destroy; or forget the process with terraform state rm.")
		return
	}
	if _, err := r.client.Job.Operate(ctx, m.scope(), gse.OpUnhost, []gse.JobProcess{m.process(m.ips())}); err != nil {
		next := "The resource stays in the state; destroy again once the cause is fixed."
		if gse.KindOf(err) == gse.KindRemoved {
			next = forgetWithoutJOB
		}
		plumbing.AddAPIError(&resp.Diagnostics, "delete", m.target(), err, next)
	}
}

// ImportState takes jobImportIDFormat.
func (r *jobManagedProcessResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importJobByID(ctx, req, resp)
}
