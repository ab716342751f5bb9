package provider

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

var (
	_ resource.ResourceWithConfigure      = (*jobManagedProcessResource)(nil)
	_ resource.ResourceWithImportState    = (*jobManagedProcessResource)(nil)
	_ resource.ResourceWithValidateConfig = (*jobManagedProcessResource)(nil)
)

// jobManagedProcessResource hosts one process definition on a set of IPs
// through JOB's manage_proc (seed 003). Its model is the schema's object,
// read and written by attribute name through the shared JOB field table.
type jobManagedProcessResource struct{ client *gse.Client }

func newJobManagedProcessResource() resource.Resource { return &jobManagedProcessResource{} }

func (r *jobManagedProcessResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job_managed_process"
}

func (r *jobManagedProcessResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = clientFrom(req.ProviderData, &resp.Diagnostics)
}

var scopeTypes = []string{"biz", "biz_set"}

func (r *jobManagedProcessResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := jobAttributes(manageProcFields, []string{"proc_name", "proc_owner"}, []string{"proc_name", "setup_path", "value_key"})
	typeField := jobFields["type"]
	attrs["type"] = schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(0),
		MarkdownDescription: typeField.desc + " Defaults to `0`.", Validators: typeField.ints}
	attrs["id"] = schema.StringAttribute{Computed: true, MarkdownDescription: "`bk_scope_type:bk_scope_id/setup_path/proc_name`.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
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
			"status":  schema.StringAttribute{Computed: true, MarkdownDescription: "`running`, `stopped`, or `error` when the query failed on the IP."},
			"managed": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the agent hosts the process (`isAuto`)."},
			"pid":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Process id; `-1` when not running."},
			"version": schema.StringAttribute{Computed: true, MarkdownDescription: "Version the agent reports."},
		}},
	}
	attrs["timeouts"] = timeouts.Attributes(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true})
	resp.Schema = schema.Schema{
		MarkdownDescription: "A process definition hosted (托管) on a set of IPs through the JOB platform's `manage_proc` (op_type 1 registers hosting, 2 unregisters), " +
			"for installations that manage processes through JOB rather than GSE directly. Each task is polled with `get_proc_result` until every IP is done. " +
			"Refresh runs a status query (op_type 2 through `operate_process`), so an IP whose process is no longer hosted leaves `ip_list` and shows up as drift.",
		Attributes: attrs,
	}
}

// ValidateConfig: a periodic process (type 0, the default) needs its period.
func (r *jobManagedProcessResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var typ, cycle types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("type"), &typ)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("cycle_time"), &cycle)...)
	if typ.IsUnknown() || cycle.IsUnknown() {
		return
	}
	if (typ.IsNull() || typ.ValueInt64() == 0) && cycle.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("cycle_time"), "cycle_time is required for a periodic process",
			"type = 0 (periodic, the default) needs cycle_time, the period in seconds. Set it, or choose type = 1 (resident) or 2 (one-shot).")
	}
}

// jobModel is the resource's object by attribute name.
type jobModel map[string]attr.Value

func (m jobModel) str(n string) string {
	v, _ := m[n].(types.String)
	return v.ValueString()
}

func (m jobModel) scope() gse.JobScope {
	return gse.JobScope{Type: m.str("bk_scope_type"), ID: m.str("bk_scope_id")}
}

func (m jobModel) ipSet() types.Set {
	s, _ := m["ip_list"].(types.Set)
	return s
}

// process is the definition with the given IPs (all of ip_list when nil).
func (m jobModel) process(ips []gse.JobIP) gse.JobProcess {
	p := jobProcessFrom(m)
	if ips != nil {
		p.IPList = ips
	}
	return p
}

func (m jobModel) timeouts() timeouts.Value {
	t, _ := m["timeouts"].(timeouts.Value)
	return t
}

func getJobModel(ctx context.Context, get func(context.Context, any) diag.Diagnostics, diags *diag.Diagnostics) (types.Object, jobModel) {
	var obj types.Object
	diags.Append(get(ctx, &obj)...)
	m := jobModel{}
	for k, v := range obj.Attributes() {
		m[k] = v
	}
	return obj, m
}

func setJobModel(ctx context.Context, like types.Object, m jobModel, set func(context.Context, any) diag.Diagnostics, diags *diag.Diagnostics) {
	obj, d := types.ObjectValue(like.AttributeTypes(ctx), m)
	diags.Append(d...)
	if !d.HasError() {
		diags.Append(set(ctx, obj)...)
	}
}

// withIPs keeps the elements of an ip_list set whose host is in keep, as the user wrote them.
func withIPs(set types.Set, keep []gse.JobIP) types.Set {
	addrs := make([]string, len(keep))
	for i, ip := range keep {
		addrs[i] = jobIPAddr(ip)
	}
	els := selectBy(set.Elements(), func(el attr.Value) string { return jobIPAddr(jobIPOf(el)) }, addrs, true)
	return types.SetValueMust(set.ElementType(context.Background()), els)
}

// succeeded lists the IPs of an outcome whose result is a success.
func succeeded(out *gse.Outcome) []gse.JobIP {
	var ips []gse.JobIP
	if out != nil {
		for _, h := range out.Hosts {
			if h.OK() {
				ips = append(ips, gse.JobIP{IP: h.Host.IP, BkCloudID: h.Host.BkCloudID})
			}
		}
	}
	return ips
}

func (r *jobManagedProcessResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	like, m := getJobModel(ctx, req.Plan.Get, &resp.Diagnostics)
	ctx, cancel := deadline(ctx, m.timeouts().Create, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	scope, proc := m.scope(), m.process(nil)
	m["id"] = types.StringValue(fmt.Sprintf("%s/%s/%s", scope, proc.SetupPath, proc.ProcName))
	out, err := r.client.JobManage(ctx, scope, gse.JobRegister, []gse.JobProcess{proc})
	if err != nil {
		addJobError(&resp.Diagnostics, "create", scope, proc, err,
			"The IPs where hosting was registered are kept in the state, and the resource is tainted: the next apply unregisters and registers it again.")
		done := succeeded(out)
		if len(done) == 0 {
			return
		}
		m["ip_list"] = withIPs(m.ipSet(), done)
	}
	m["ip_status"] = r.ipStatus(ctx, m, nil, &resp.Diagnostics)
	setJobModel(ctx, like, m, resp.State.Set, &resp.Diagnostics)
}

// jobStatusType is the element type of ip_status.
var jobStatusType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"status": types.StringType, "managed": types.BoolType, "pid": types.Int64Type, "version": types.StringType,
}}

// ipStatus queries the process's state on its IPs (op_type 2 through
// operate_process) and builds ip_status; hosted, when not nil, receives
// whether each IP's process is hosted (an IP whose query failed counts as hosted:
// unknown is not drift). A failed query leaves a warning, not an error.
func (r *jobManagedProcessResource) ipStatus(ctx context.Context, m jobModel, hosted map[string]bool, diags *diag.Diagnostics) types.Map {
	proc := m.process(nil)
	elems := map[string]attr.Value{}
	if proc.PidPath == "" || len(proc.IPList) == 0 {
		return types.MapValueMust(jobStatusType, elems)
	}
	out, err := r.client.JobOperate(ctx, m.scope(), gse.OpStatus, []gse.JobProcess{proc})
	if err != nil {
		diags.AddWarning("Could not query the process status on every IP", err.Error()+"\n\nIPs whose status is unknown are kept as they are.")
	}
	if out == nil {
		return types.MapValueMust(jobStatusType, elems)
	}
	for _, h := range out.Hosts {
		st := jobIPStatusOf(h)
		elems[hostKey(h.Host)] = types.ObjectValueMust(jobStatusType.AttrTypes, map[string]attr.Value{
			"status": types.StringValue(st.status), "managed": types.BoolValue(st.managed), "pid": types.Int64Value(st.pid), "version": types.StringValue(st.version),
		})
		if hosted != nil {
			hosted[h.Host.Addr()] = st.managed || st.status == "error"
		}
	}
	return types.MapValueMust(jobStatusType, elems)
}

type jobIPStatus struct {
	status  string
	managed bool
	pid     int64
	version string
}

// jobIPStatusOf reads one IP's status answer: the first instance of its content.
func jobIPStatusOf(h gse.HostOutcome) jobIPStatus {
	st := jobIPStatus{status: "stopped", pid: -1}
	c, err := gse.ParseContent(h.Content)
	if !h.OK() || err != nil {
		st.status = fmt.Sprintf("error (GSE code %d)", h.ErrorCode)
		if h.OK() {
			st.status = "error (unreadable content)"
		}
		return st
	}
	for _, p := range c.Process {
		for _, in := range p.Instance {
			st.managed, st.pid, st.version = bool(in.IsAuto), in.PID, in.Version
			if in.PID > 0 {
				st.status = "running"
			}
			return st
		}
	}
	return st
}

func (r *jobManagedProcessResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	like, m := getJobModel(ctx, req.State.Get, &resp.Diagnostics)
	ctx, cancel := deadline(ctx, m.timeouts().Read, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	if m.str("pid_path") == "" {
		// Imported and not applied yet: operate_process cannot query without pid_path.
		return
	}
	hosted := map[string]bool{}
	m["ip_status"] = r.ipStatus(ctx, m, hosted, &resp.Diagnostics)
	var kept []gse.JobIP
	for _, ip := range jobIPs(m.ipSet()) {
		if h, ok := hosted[jobIPAddr(ip)]; h || !ok {
			kept = append(kept, ip)
		}
	}
	if len(kept) == 0 {
		resp.Diagnostics.AddWarning(fmt.Sprintf("JOB process %s is no longer hosted", m.str("id")),
			"No IP hosts the process any more, so it was removed from the state; the next apply registers it again.")
		resp.State.RemoveResource(ctx)
		return
	}
	m["ip_list"] = withIPs(m.ipSet(), kept)
	setJobModel(ctx, like, m, resp.State.Set, &resp.Diagnostics)
}

// Update unregisters removed IPs, then registers the definition on new IPs,
// and on kept ones when it changed. The state records what succeeded.
func (r *jobManagedProcessResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	like, plan := getJobModel(ctx, req.Plan.Get, &resp.Diagnostics)
	_, prior := getJobModel(ctx, req.State.Get, &resp.Diagnostics)
	ctx, cancel := deadline(ctx, plan.timeouts().Update, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}

	cur := jobModel{}
	for k, v := range prior {
		cur[k] = v
	}
	cur["timeouts"] = plan["timeouts"]
	scope := plan.scope()
	err := func() error {
		removed, added, kept := diffBy(jobIPs(prior.ipSet()), jobIPs(plan.ipSet()), jobIPAddr)
		if len(removed) > 0 {
			out, err := r.client.JobManage(ctx, scope, gse.JobUnregister, []gse.JobProcess{prior.process(removed)})
			var gone []string
			for _, ip := range succeeded(out) {
				gone = append(gone, jobIPAddr(ip))
			}
			cur["ip_list"] = withIPs(cur.ipSet(), selectBy(jobIPs(cur.ipSet()), jobIPAddr, gone, false))
			if err != nil {
				return err
			}
		}
		targets := added
		if changed := !sameJobDefinition(prior, plan); changed {
			targets = append(targets, kept...)
		}
		if len(targets) > 0 {
			out, err := r.client.JobManage(ctx, scope, gse.JobRegister, []gse.JobProcess{plan.process(targets)})
			cur["ip_list"] = withIPs(plan.ipSet(), append(jobIPs(cur.ipSet()), succeeded(out)...))
			if err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		addJobError(&resp.Diagnostics, "update", scope, plan.process(nil), err, "The state records the steps that succeeded; fix the cause above and apply again to finish.")
	} else {
		cur = plan
	}
	cur["ip_status"] = r.ipStatus(ctx, cur, nil, &resp.Diagnostics)
	setJobModel(ctx, like, cur, resp.State.Set, &resp.Diagnostics)
}

// sameJobDefinition compares the process definitions of two models.
func sameJobDefinition(a, b jobModel) bool {
	for _, n := range manageProcFields {
		if !a[n].Equal(b[n]) {
			return false
		}
	}
	return true
}

func (r *jobManagedProcessResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	_, m := getJobModel(ctx, req.State.Get, &resp.Diagnostics)
	ctx, cancel := deadline(ctx, m.timeouts().Delete, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	proc := m.process(nil)
	if _, err := r.client.JobManage(ctx, m.scope(), gse.JobUnregister, []gse.JobProcess{proc}); err != nil {
		addJobError(&resp.Diagnostics, "delete", m.scope(), proc, err, "The resource stays in the state; destroy again once the cause is fixed.")
	}
}

// addJobError reports a failed JOB call like addAPIError does for GSE.
func addJobError(diags *diag.Diagnostics, action string, scope gse.JobScope, p gse.JobProcess, err error, next string) {
	addAPIError(diags, action, gse.Meta{Namespace: "JOB " + scope.String(), Name: p.Path()}, err, next)
}
