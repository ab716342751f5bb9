package provider

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
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

func newJobManagedProcessResource() resource.Resource { return &jobManagedProcessResource{} }

func (r *jobManagedProcessResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job_managed_process"
}

func (r *jobManagedProcessResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = clientFrom(req.ProviderData, &resp.Diagnostics)
	needsESB(r.client, "gse_job_managed_process", &resp.Diagnostics)
}

var scopeTypes = []string{"biz", "biz_set"}

func (r *jobManagedProcessResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := jobAttributes(hostingFields, []string{"setup_path", "proc_name", "pid_path"}, []string{"proc_name", "setup_path", "value_key"})
	attrs["type"] = schema.Int64Attribute{Required: true, Validators: jobFields["type"].ints,
		MarkdownDescription: jobFields["type"].desc + " Required: `operate_process` would otherwise send `0`, a periodic process with a `cycle_time` of 0."}
	attrs["account"] = schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("root"),
		MarkdownDescription: jobFields["account"].desc + " Defaults to `root`, as the JOB server does.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)}}
	attrs["id"] = schema.StringAttribute{Computed: true,
		MarkdownDescription: "`bk_scope_type:bk_scope_id/setup_path/proc_name`, followed by `?value_key=...` when `value_key` is set.",
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	attrs["bk_scope_type"] = schema.StringAttribute{Required: true,
		MarkdownDescription: "Scope of the process: `biz` (a business) or `biz_set` (a business set). Changing it replaces the resource.",
		Validators:          []validator.String{stringvalidator.OneOf(scopeTypes...)},
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}}
	attrs["bk_scope_id"] = schema.StringAttribute{Required: true,
		MarkdownDescription: "Id of the business or business set, as a string such as `\"2\"`. Changing it replaces the resource.",
		Validators:          []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^[0-9]+$`), "must be a number written as a string, such as \"2\"")},
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}}
	attrs["ip_list"] = jobIPListAttribute("Hosts the process is hosted on. Adding an IP registers hosting there; removing one unregisters it there.")
	attrs["ip_status"] = schema.MapNestedAttribute{
		Computed: true,
		MarkdownDescription: "Runtime state per IP, keyed `bk_cloud_id:ip`, from the status query (op_type 2 through `operate_process`) of the last apply or refresh. " +
			"Read-only; it changes outside Terraform (pids) without causing a diff.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"status": schema.StringAttribute{Computed: true,
				MarkdownDescription: "`running` when any instance has a pid, `stopped`, or `error (...)` when the query failed on the IP or its answer was unreadable."},
			"managed": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether the agent hosts the process (`isAuto` of any instance); null when the answer does not say."},
			"pid":               schema.Int64Attribute{Computed: true, MarkdownDescription: "Process id of the first running instance; `-1` when none runs."},
			"version":           schema.StringAttribute{Computed: true, MarkdownDescription: "Version the agent reports (of a running instance first)."},
			"running_instances": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many instances have a pid; compare with `instance_num`."},
		}},
	}
	attrs["rollout"] = rolloutAttribute("It governs each hosting step: registering hosting (op_type 3) on create and on added IPs, " +
		"registering kept IPs again after a definition change, and unregistering hosting (op_type 4) on removed IPs. `wait_running` applies to registering " +
		"and suits resident processes (`type = 1`), which the agent pulls up. What a stopped rollout leaves in the state: " +
		"removed IPs that were unregistered leave `ip_list`, added IPs that were registered join it, and a definition change stays unapplied " +
		"(the prior definition is kept, so the next apply registers every kept IP again). A create that stops keeps the registered batches, tainted.")
	attrs["timeouts"] = resourceTimeouts(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true})
	resp.Schema = schema.Schema{
		Version: 1,
		MarkdownDescription: "A process definition hosted (托管) on a set of IPs through the JOB platform's `operate_process`: op_type 3 registers hosting, " +
			"4 unregisters it (the JOB server hands them to GSE's register / unregister hosting, as BlueKing's monitor hosted processes through JOB), " +
			"for installations that manage processes through JOB rather than GSE directly. Each task is polled with `get_proc_result` until every IP is done. " +
			"Refresh runs a status query (op_type 2 through `operate_process`), so an IP whose agent says the process is no longer hosted leaves `ip_list` and shows up as drift; " +
			"an IP whose answer does not say (no `isAuto`), fails or is unreadable is kept.\n\n" +
			"`manage_proc` is not used: its document numbers 1 register and 2 unregister, but the open-source JOB server passes them to GSE unchanged, " +
			"where 1 stops the process and 2 queries it.\n\n" +
			"**JOB versions:** the JOB process APIs exist up to JOB 3.6. JOB 3.7 and later no longer serve them " +
			"(every call fails at once with a message saying so): use `gse_managed_process` there.",
		Attributes: attrs,
	}
}

// ValidateConfig: a periodic process (type 0) needs its period.
func (r *jobManagedProcessResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var typ, cycle types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("type"), &typ)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("cycle_time"), &cycle)...)
	validateRolloutSize(ctx, req.Config, path.Root("rollout"), elementCount(ctx, req.Config, path.Root("ip_list")), &resp.Diagnostics)
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
	ctx, cancel := deadline(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID = types.StringValue(plan.id())
	var registered []gse.JobIP
	err := r.hostInBatches(ctx, &plan, gse.OpHost, plan.ips(), func(out *gse.JobOutcome, err error) {
		registered = append(registered, jobMayExist(out, err)...)
	})
	if err != nil {
		addAPIError(&resp.Diagnostics, "create", plan.target(), err,
			"The IPs where hosting may be registered are kept in the state, and the resource is tainted: the next apply unregisters and registers it again.")
		plan.IPList = selectBy(plan.IPList, keyOf(hostRefModel.api), each(registered, gse.JobIP.Key), true)
		if len(plan.IPList) == 0 {
			return
		}
	}
	plan.IPStatus = r.ipStatus(ctx, &plan, nil, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// forgetWithoutJOB is the way out for a process hosted before JOB lost its process APIs.
const forgetWithoutJOB = "To forget the process without JOB, remove it from the state (terraform state rm)."

// jobMayExist lists the IPs where a register may have taken effect: those that
// succeeded and those still pending at the deadline.
func jobMayExist(out *gse.JobOutcome, err error) []gse.JobIP {
	ips := out.Succeeded()
	var hostsErr *gse.HostsError
	if errors.As(err, &hostsErr) {
		for _, h := range hostsErr.Pending {
			ips = append(ips, h.JobIP())
		}
	}
	return ips
}

// ipStatus reads ip_status; hosted, when not nil, receives the drift
// judgement of each IP (stillHosted). A failed query leaves a warning, not an error.
func (r *jobManagedProcessResource) ipStatus(ctx context.Context, m *jobManagedProcessModel, hosted map[string]bool, diags *diag.Diagnostics) types.Map {
	elems := map[string]attr.Value{}
	if m.PidPath.ValueString() == "" || len(m.IPList) == 0 {
		return types.MapValueMust(jobStatusType, elems)
	}
	states, err := findJobIPStates(ctx, r.client, m.scope(), m.process(m.ips()))
	switch {
	case gse.KindOf(err) == gse.KindRemoved:
		addAPIError(diags, "query the status of", m.target(), err, forgetWithoutJOB)
	case err != nil:
		diags.AddWarning("Could not query the process status on every IP", err.Error()+"\n\nIPs whose status is unknown are kept as they are.")
	}
	for _, ip := range m.ips() {
		o, ok := states[ip.Key()]
		if ok {
			elems[ip.Host().Address()] = jobIPStatusOf(o, true).value()
		}
		if hosted != nil {
			hosted[ip.Key()] = stillHosted(o, ok)
		}
	}
	return types.MapValueMust(jobStatusType, elems)
}

func (r *jobManagedProcessResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m jobManagedProcessModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := deadline(ctx, m.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() || m.PidPath.ValueString() == "" {
		// Imported without pid_path: operate_process cannot query without it.
		return
	}
	hosted := map[string]bool{}
	m.IPStatus = r.ipStatus(ctx, &m, hosted, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	kept := m.IPList[:0:0]
	for _, ip := range m.IPList {
		if hosted[ip.api().Key()] {
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
	ctx, cancel := deadline(ctx, plan.Timeouts.Update, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}

	applied := prior
	applied.Timeouts = plan.Timeouts
	if err := r.converge(ctx, &plan, &prior, &applied); err != nil {
		addAPIError(&resp.Diagnostics, "update", plan.target(), err,
			"The state records the steps that succeeded; fix the cause above and apply again to finish.")
	} else {
		applied = plan
	}
	applied.IPStatus = r.ipStatus(ctx, &applied, nil, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &applied)...)
}

// converge unregisters removed IPs, re-registers kept ones when the definition
// changed, then registers new ones, recording each step in applied.
func (r *jobManagedProcessResource) converge(ctx context.Context, plan, prior, applied *jobManagedProcessModel) error {
	removed, added, kept := diffBy(prior.ips(), plan.ips(), gse.JobIP.Key)
	// Framework values compare by state and value, so == is Equal field by field.
	changed := prior.jobDefinitionModel != plan.jobDefinitionModel || !prior.Contact.Equal(plan.Contact) || !prior.Account.Equal(plan.Account)

	// Each step goes in the batches of plan's rollout; prior's definition for removals.
	withRollout := *prior
	withRollout.Rollout = plan.Rollout
	if len(removed) > 0 {
		err := r.hostInBatches(ctx, &withRollout, gse.OpUnhost, removed, func(out *gse.JobOutcome, _ error) {
			applied.IPList = selectBy(applied.IPList, keyOf(hostRefModel.api), each(out.Succeeded(), gse.JobIP.Key), false)
		})
		if err != nil {
			return err
		}
	}
	if changed {
		if len(kept) > 0 {
			// A partial re-register leaves the prior definition in the state: the next apply sends the new one again.
			if err := r.hostInBatches(ctx, plan, gse.OpHost, kept, func(*gse.JobOutcome, error) {}); err != nil {
				return err
			}
		}
		applied.jobDefinitionModel, applied.Contact, applied.Account = plan.jobDefinitionModel, plan.Contact, plan.Account
	}
	if len(added) > 0 {
		err := r.hostInBatches(ctx, plan, gse.OpHost, added, func(out *gse.JobOutcome, err error) {
			applied.IPList = append(applied.IPList, selectBy(plan.IPList, keyOf(hostRefModel.api), each(jobMayExist(out, err), gse.JobIP.Key), true)...)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *jobManagedProcessResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m jobManagedProcessModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := deadline(ctx, m.Timeouts.Delete, &resp.Diagnostics)
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
		addAPIError(&resp.Diagnostics, "delete", m.target(), err, next)
	}
}

// jobManagedProcessModel is the resource's state and plan.
type jobManagedProcessModel struct {
	ID          types.String `tfsdk:"id"`
	BkScopeType types.String `tfsdk:"bk_scope_type"`
	BkScopeID   types.String `tfsdk:"bk_scope_id"`
	Contact     types.String `tfsdk:"contact"`
	Account     types.String `tfsdk:"account"`
	jobDefinitionModel
	IPList   []hostRefModel `tfsdk:"ip_list"`
	IPStatus types.Map      `tfsdk:"ip_status"`
	Rollout  *rolloutModel  `tfsdk:"rollout"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

func (m *jobManagedProcessModel) scope() gse.JobScope {
	return gse.JobScope{Type: m.BkScopeType.ValueString(), ID: m.BkScopeID.ValueString()}
}

func (m *jobManagedProcessModel) ips() []gse.JobIP { return apiJobIPs(m.IPList) }

// process is the operate_process item for ips.
func (m *jobManagedProcessModel) process(ips []gse.JobIP) gse.JobProcess {
	p := m.api(ips)
	p.Contact, p.Account = m.Contact.ValueString(), m.Account.ValueString()
	return p
}

func (m *jobManagedProcessModel) target() gse.JobTarget {
	return gse.TargetOf(m.scope(), m.process(nil))
}

// id is scope/setup_path/proc_name, with the value_key the agent indexes the process by.
func (m *jobManagedProcessModel) id() string {
	id := fmt.Sprintf("%s/%s/%s", m.scope(), m.SetupPath.ValueString(), m.ProcName.ValueString())
	if k := m.ValueKey.ValueString(); k != "" {
		id += "?" + url.Values{"value_key": {k}}.Encode()
	}
	return id
}

// hostInBatches sends operate_process op (gse.OpHost or gse.OpUnhost) for ips
// of m batch by batch (see rollout.run); acted receives each batch's outcome,
// so the caller records what took effect as it happens. wait_running applies
// to registering hosting (the agent pulls a resident process up).
func (r *jobManagedProcessResource) hostInBatches(ctx context.Context, m *jobManagedProcessModel, op gse.OpType, ips []gse.JobIP, acted func(*gse.JobOutcome, error)) error {
	scope := m.scope()
	st := rolloutStep{what: op.Info().API, target: m.target(), run: func(ctx context.Context, batch []gse.Host) error {
		out, err := r.client.Job.Operate(ctx, scope, op, []gse.JobProcess{m.process(each(batch, gse.Host.JobIP))})
		acted(out, err)
		return err
	}}
	if op == gse.OpHost {
		st.notRunning = &runningCheck{client: r.client, query: func(ctx context.Context, batch []gse.Host) (map[string]string, error) {
			return jobNotRunning(ctx, r.client, scope, m.process(each(batch, gse.Host.JobIP)))
		}}
	}
	_, err := m.Rollout.plan().run(ctx, each(ips, gse.JobIP.Host), st)
	return err
}
