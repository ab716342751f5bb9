package managedprocess

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/lifecycle"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

var (
	_ resource.ResourceWithConfigure      = (*managedProcessResource)(nil)
	_ resource.ResourceWithValidateConfig = (*managedProcessResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*managedProcessResource)(nil)
	_ resource.ResourceWithImportState    = (*managedProcessResource)(nil)
	_ resource.ResourceWithIdentity       = (*managedProcessResource)(nil)
)

// managedProcessResource is gse_managed_process: one process (meta) registered
// with one spec on a list of hosts, hosted and running as configured.
type managedProcessResource struct{ client *gse.Client }

// NewResource is gse_managed_process.
func NewResource() resource.Resource { return &managedProcessResource{} }

// steps are the GSE calls the CRUD is made of.
func (r *managedProcessResource) steps() lifecycle.Steps { return lifecycle.Steps{Client: r.client} }

func (r *managedProcessResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_managed_process"
}

func (r *managedProcessResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = managedProcessSchema(ctx)
}

func (r *managedProcessResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = plumbing.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *managedProcessResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = managedProcessIdentitySchema()
}

// ValidateConfig checks what spans several attributes: run states GSE cannot
// hold, operations without their command, and deadlines that could never pass.
func (r *managedProcessResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var c commandSettings
	var meta types.Object
	var specValue spec.Value
	for _, a := range []struct {
		at     path.Path
		target any
	}{
		{path.Root("managed"), &c.managed}, {path.Root("running"), &c.running},
		{path.Root("restart_triggers"), &c.restartTriggers}, {path.Root("reload_triggers"), &c.reloadTriggers},
		{path.Root("spec"), &specValue}, {path.Root("meta"), &meta},
	} {
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, a.at, a.target)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	def := specValue.Model()
	validateRunState(c.managed, c.running, &resp.Diagnostics)
	rollout.ValidateSize(ctx, req.Config, path.Root("rollout"), rollout.ElementCount(ctx, req.Config, path.Root("hosts")), &resp.Diagnostics)
	// A spec not known yet (from a data source or another resource, such as
	// gse_cmdb_processes' groups) is checked at plan, once it is.
	if !specValue.IsNull() && !specValue.IsUnknown() && !specValue.Partial {
		c.process = processName(meta)
		validateCommands(c, def, &resp.Diagnostics)
	}
	// A warning, not an error: GSE accepts a periodic process without a rule
	// (operate_proc_v2 documents crontab_rule as optional and reserved), but nothing will run it.
	if p := def.MonitorPolicy; !p.AutoType.IsUnknown() && !p.AutoType.IsNull() && p.AutoType.ValueInt64() == 0 && p.CrontabRule.IsNull() {
		resp.Diagnostics.AddAttributeWarning(policyPath.AtName("crontab_rule"), "Periodic process without crontab_rule",
			"auto_type = 0 makes the process periodic: the agent runs it on the schedule in crontab_rule, and without one it is never run. "+
				"Set crontab_rule (for example \"*/5 * * * *\"), or auto_type = 1 for a resident process.")
	}
}

// ModifyPlan refuses hosts that need gateway_url when it is not set, names
// hosts leaving and joining, keeps host_status when nothing else changes, and
// else keeps the entries of hosts the update leaves alone. The framework marks
// computed attributes unknown whenever Terraform's proposed state differs from
// the prior state, and a reordered or respelled hosts list does, even though
// hostsPlan then plans the prior hosts: without this, such a plan would show an
// update of host_status alone.
func (r *managedProcessResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	hosts.PlanNeedsGateway(ctx, r.client, req.Plan, path.Root("hosts"), &resp.Diagnostics)
	sayStopLeavesRunning(ctx, req.State, req.Plan, req.Private, &resp.Diagnostics)
	if req.State.Raw.IsNull() && !req.Plan.Raw.IsNull() {
		sayGSEKitNamespace(ctx, req.Plan, &resp.Diagnostics)
	}
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	sayHostsMoving(ctx, req.State, req.Plan, &resp.Diagnostics)
	sayHostsDrifted(ctx, req.State, req.Plan, &resp.Diagnostics)
	if !sameExcept(req.Plan.Raw, req.State.Raw, "host_status") {
		planned, ok, d := plannedStatus(ctx, req.State, req.Plan)
		if resp.Diagnostics.Append(d...); ok {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("host_status"), planned)...)
		}
		return
	}
	var prior status.HostStatus
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("host_status"), &prior)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("host_status"), prior)...)
}

func (r *managedProcessResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer appendIdentity(ctx, req.Plan, resp.Identity, &resp.Diagnostics)
	// Announced first thing, so that other creates' operations wait for this
	// one's and no batch waits for nothing (gse.ProcService.ExpectOperate).
	ctx, withdraw := r.client.Proc.ExpectOperate(ctx)
	defer withdraw()
	var plan managedProcessModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, cancel := plumbing.Deadline(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	d, pairs, diags := plan.expand(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	meta := d.Meta
	plan.ID = types.StringValue(meta.String())
	var pr lifecycle.Proven
	registered, err := r.steps().Create(ctx, d, &pr)
	if err != nil {
		if len(registered) == 0 {
			plumbing.AddAPIError(&resp.Diagnostics, "create", meta, err, "Nothing was registered by this create, so the resource is not in the state.")
			return // nothing exists remotely: no state
		}
		plumbing.AddAPIError(&resp.Diagnostics, "create", meta, err, fmt.Sprintf(
			"The %s where the process may be registered are kept in the state, and Terraform taints the resource: "+
				"a plain next apply replaces it, stopping the process on those hosts and starting it again. "+
				"To finish only the hosts that failed, fix the cause above, run terraform untaint with this resource's address (shown above), "+
				"then terraform apply: it adds the failed hosts and leaves the others running.", plumbing.HostCount(len(registered))))
		pairs = plumbing.SelectBy(pairs, plumbing.KeyOf(hosts.Pair.Host), plumbing.Each(registered, gse.Host.Key), true)
		plan.Hosts = hosts.NewList(plumbing.Each(pairs, hosts.Pair.Model))
	}
	plan.HostStatus = status.Proved(pairs, status.HostStatus{}, pr.Of) // no prior host_status
	if err == nil {
		plan.HostStatus = status.Applied(ctx, r.client, meta, pairs, plan.HostStatus, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(saveDesired(ctx, resp.Private, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read refreshes the runtime state. Hosts where the process is no longer
// registered leave the state; with none left, the resource does. managed and
// running turn to what GSE reports, so a plan shows the drift; running of a
// one-shot process (auto_type 2) is not read back.
func (r *managedProcessResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	// From the prior state: when the process is gone the new state is null,
	// and Terraform still expects the identity.
	defer appendIdentity(ctx, req.State, resp.Identity, &resp.Diagnostics)
	var state refreshedModel
	resp.Diagnostics.Append(state.get(ctx, req.State)...)
	ctx, cancel := plumbing.Deadline(ctx, state.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	prior := state
	meta, d := state.Meta.Expand(ctx)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	pairs := state.Hosts.Pairs()
	obs, err := status.Read(ctx, r.client, meta, plumbing.Each(pairs, hosts.Pair.Host))
	if err != nil {
		plumbing.AddAPIError(&resp.Diagnostics, "read", meta, err, "Check the provider configuration (endpoint or gateway_url), then refresh again.")
		return
	}
	want := loadDesired(ctx, req.Private, state.Managed, state.Running, &resp.Diagnostics)
	kept, hosted, running, labels := observe(pairs, obs)
	if len(kept) == 0 {
		resp.Diagnostics.AddWarning(fmt.Sprintf("Process %s is gone", meta),
			"GSE no longer has the process registered on any of its hosts, so it was removed from the state; the next apply creates it again.")
		resp.State.RemoveResource(ctx)
		return
	}
	state.Hosts = hosts.NewList(plumbing.Each(kept, hosts.Pair.Model))
	hosts.WarnAgentsDown(&resp.Diagnostics, "process "+meta.String(), obs.Down)
	// Judged against what was asked: true holds while every host agrees, false while none disagrees.
	if seen := len(kept) - len(obs.Down); seen > 0 {
		state.Managed = types.BoolValue(observedFlag(want.Managed, hosted, seen))
		// A one-shot exits by design: running is what Terraform did, not read back.
		if want.Running != nil && state.AutoType.ValueInt64() != gse.AutoTypeOneShot {
			state.Running = types.BoolValue(observedFlag(*want.Running, running, seen))
		}
	}
	switch {
	case len(labels) > 0:
		state.Meta.Labels, d = types.MapValueFrom(ctx, types.StringType, labels)
		resp.Diagnostics.Append(d...)
	case len(state.Meta.Labels.Elements()) > 0:
		state.Meta.Labels = types.MapNull(types.StringType)
	}
	state.HostStatus = obs.HostStatus(kept, state.HostStatus)
	resp.Diagnostics.Append(state.setChanged(ctx, prior, &resp.State)...)
}

// Update converges step by step (lifecycle.Steps.Update). After a failure the
// state is the prior one with each step that succeeded (reached), so that it
// says what exists (hosts registered or possibly registered, spec in effect,
// triggers run); runtime drift (hosting, run state) is caught by the next
// refresh anyway.
func (r *managedProcessResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer appendIdentity(ctx, req.Plan, resp.Identity, &resp.Diagnostics)
	var plan, prior managedProcessModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	ctx, cancel := plumbing.Deadline(ctx, plan.Timeouts.Update, &resp.Diagnostics)
	defer cancel()
	next, planned, d := plan.expand(ctx)
	resp.Diagnostics.Append(d...)
	last, held, d := prior.expand(ctx)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}

	var pr lifecycle.Proven
	triggers := loadTriggerProgress(ctx, req.Private, &resp.Diagnostics)
	done, err := r.steps().Update(ctx, next, lifecycle.Prior{Desired: last, Status: prior.HostStatus.Facts(held)}, &pr, triggers)
	applied, pairs := plan, planned
	if err != nil {
		plumbing.AddAPIError(&resp.Diagnostics, "update", next.Meta, err,
			"The state records the steps that succeeded; fix the cause above and apply again to finish.")
		applied, pairs = prior.reached(&plan, done, held, planned)
		applied.Timeouts = plan.Timeouts
	}
	applied.HostStatus = status.Proved(pairs, prior.HostStatus, pr.Of)
	if err == nil {
		applied.HostStatus = status.Updated(plan.HostStatus, status.Applied(ctx, r.client, next.Meta, pairs, applied.HostStatus, &resp.Diagnostics))
	}
	resp.Diagnostics.Append(saveDesired(ctx, resp.Private, &plan)...)
	resp.Diagnostics.Append(saveTriggerProgress(ctx, resp.Private, triggers)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &applied)...)
}

func (r *managedProcessResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, withdraw := r.client.Proc.ExpectOperate(ctx) // as in Create
	defer withdraw()
	var state managedProcessModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	ctx, cancel := plumbing.Deadline(ctx, state.Timeouts.Delete, &resp.Diagnostics)
	defer cancel()
	meta, d := state.Meta.Expand(ctx)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	stop := stopsOnDelete(state.Running, loadDesired(ctx, req.Private, state.Managed, state.Running, &resp.Diagnostics))
	targets := state.Hosts.Expand()
	if state.Spec.Decoded == nil && r.client.Gateway() {
		refuseSpeclessDelete(&resp.Diagnostics, meta, targets)
		return
	}
	if err := r.steps().Destroy(ctx, meta, state.Spec.Expand(), targets, stop); err != nil {
		plumbing.AddAPIError(&resp.Diagnostics, "delete", meta, err,
			"The resource stays in the state; hosts already cleared are skipped when destroy runs again.")
		return
	}
	warnRecordsLeft(&resp.Diagnostics, r.client, meta, targets, stop)
}

// ImportState takes the string ID (importIDFormat) or, with no ID, an identity:
// then the hosts are discovered.
func (r *managedProcessResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" {
		importByIdentity(ctx, r.client, req, resp)
		return
	}
	importByID(ctx, r.client, req, resp)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(identityFrom(ctx, resp.State, resp.Identity)...)
	}
}
