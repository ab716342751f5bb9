package processoperation

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

var (
	_ resource.ResourceWithConfigure      = (*processOperationResource)(nil)
	_ resource.ResourceWithValidateConfig = (*processOperationResource)(nil)
)

// processOperationResource runs one operation when created, like
// terraform_data: every input replaces it, so changing triggers runs it again.
type processOperationResource struct{ client *gse.Client }

// NewResource is gse_process_operation, the resource.
func NewResource() resource.Resource { return &processOperationResource{} }

// operationOrder are the values of operation, in op_type order; register and
// unregister hosting (3, 4) belong to the managed resources.
var operationOrder = []struct {
	name string
	op   gse.OpType
}{
	{"start", gse.OpStart}, {"stop", gse.OpStop}, {"status", gse.OpStatus},
	{"restart", gse.OpRestart}, {"reload", gse.OpReload}, {"kill", gse.OpKill},
}

// operations are the values of operation with their op_type.
var operations = func() map[string]gse.OpType {
	m := map[string]gse.OpType{}
	for _, o := range operationOrder {
		m[o.name] = o.op
	}
	return m
}()

// opTypeNumbers lists the op_type of each operation: "0, 1, 2, 7, 8 and 9".
func opTypeNumbers() string {
	var nums []string
	for _, o := range operationOrder {
		nums = append(nums, strconv.Itoa(int(o.op)))
	}
	return strings.Join(nums[:len(nums)-1], ", ") + " and " + nums[len(nums)-1]
}

// operationNames are the values of operation in op_type order.
func operationNames() []string {
	var names []string
	for _, o := range operationOrder {
		names = append(names, o.name)
	}
	return names
}

type processOperationModel struct {
	operationTarget
	ID       types.String   `tfsdk:"id"`
	Triggers types.Map      `tfsdk:"triggers"`
	TaskID   types.String   `tfsdk:"task_id"`
	Results  types.List     `tfsdk:"results"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

// operationTarget is what the resource and the action gse_process_operation
// share: the operation and its target, a GSE process or JOB processes.
type operationTarget struct {
	Op      types.String       `tfsdk:"op"`
	GSE     *operationGSEModel `tfsdk:"gse"`
	JOB     *operationJOBModel `tfsdk:"job"`
	Rollout *rollout.Model     `tfsdk:"rollout"`
}

type operationGSEModel struct {
	Meta  spec.Meta      `tfsdk:"meta"`
	Hosts []hosts.GSERef `tfsdk:"hosts"`
	Spec  *spec.Model    `tfsdk:"spec"`
}

type operationJOBModel struct {
	BkBizID      types.Int64                `tfsdk:"bk_biz_id"`
	ProcessInfos []operationJOBProcessModel `tfsdk:"process_infos"`
}

// operationJOBProcessModel is a process_infos item of operate_process.
type operationJOBProcessModel struct {
	spec.JobDefinition
	Contact     types.String `tfsdk:"contact"`
	Account     types.String `tfsdk:"account"`
	CmdShellExt types.String `tfsdk:"cmd_shell_ext"`
	IPList      []hosts.Ref  `tfsdk:"ip_list"`
}

// expand is the item as sent. With cmd_shell_ext (operate_proc) both limits go
// explicitly, 0 when unset, so no server default applies silently.
func (m operationJOBProcessModel) expand() gse.JobProcess {
	p := m.Expand(spec.ExpandJobIPs(m.IPList))
	p.Contact, p.Account, p.CmdShellExt = m.Contact.ValueString(), m.Account.ValueString(), m.CmdShellExt.ValueString()
	if p.CmdShellExt != "" {
		p.CPULmt, p.MemLmt = cmp.Or(p.CPULmt, new(int64)), cmp.Or(p.MemLmt, new(int64))
	}
	return p
}

type operationResult struct {
	Process   types.String `tfsdk:"process"`
	IP        types.String `tfsdk:"ip"`
	BkCloudID types.Int64  `tfsdk:"bk_cloud_id"`
	AgentID   types.String `tfsdk:"agent_id"`
	ErrorCode types.Int64  `tfsdk:"error_code"`
	ErrorMsg  types.String `tfsdk:"error_msg"`
	Content   types.String `tfsdk:"content"`
	PID       types.Int64  `tfsdk:"pid"`
	Managed   types.Bool   `tfsdk:"managed"`
	Version   types.String `tfsdk:"version"`
}

func (r *processOperationResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_process_operation"
}

func (r *processOperationResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = plumbing.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *processOperationResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	attrs := operationTargetAttributes()
	for name, a := range map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The task id.", PlanModifiers: keep},
		"triggers": schema.MapAttribute{
			ElementType: types.StringType, Optional: true,
			MarkdownDescription: "Arbitrary values; changing any runs the operation again (the resource is replaced).",
			PlanModifiers:       []planmodifier.Map{mapplanmodifier.RequiresReplace()},
		},
		"task_id": schema.StringAttribute{Computed: true, MarkdownDescription: "GSE task id of the operation (`task_id` or `bk_gse_taskid`); with `rollout`, the task ids of the batches in order, comma-separated.", PlanModifiers: keep},
		"results": schema.ListNestedAttribute{
			Computed:            true,
			MarkdownDescription: "One result per process and host, ordered by process, cloud id and IP.",
			PlanModifiers:       []planmodifier.List{listplanmodifier.UseStateForUnknown()},
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"process":     schema.StringAttribute{Computed: true, MarkdownDescription: "`namespace/name` (GSE) or `setup_path/proc_name` (JOB)."},
				"ip":          schema.StringAttribute{Computed: true, MarkdownDescription: "IP of the host."},
				"bk_cloud_id": schema.Int64Attribute{Computed: true, MarkdownDescription: "Cloud area id of the host."},
				"agent_id":    schema.StringAttribute{Computed: true, MarkdownDescription: "Agent id of a GSE host given by `agent_id` (then `ip` is empty); null otherwise."},
				"error_code":  schema.Int64Attribute{Computed: true, MarkdownDescription: "GSE code: 0, or the no-ops 828 / 829."},
				"error_msg":   schema.StringAttribute{Computed: true, MarkdownDescription: "GSE message."},
				"content":     schema.StringAttribute{Computed: true, MarkdownDescription: "The result's content, a JSON string (often empty); read it with `provider::gse::parse_status_content` or `jsondecode`."},
				"pid":         schema.Int64Attribute{Computed: true, MarkdownDescription: "From a `status` answer: the process id, `-1` when not running; null otherwise."},
				"managed":     schema.BoolAttribute{Computed: true, MarkdownDescription: "From the content: whether the agent hosts the process (`isAuto`); null when absent."},
				"version":     schema.StringAttribute{Computed: true, MarkdownDescription: "From a `status` answer: the process version; null otherwise."},
			}},
		},
		"timeouts": plumbing.ResourceTimeouts(ctx, timeouts.Opts{Create: true}),
	} {
		attrs[name] = a
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runs a process operation once, when created, and again whenever `triggers` (or any other argument) change, like `terraform_data`. " +
			"The target is either a GSE process (`gse`, sent with `operate_proc_v2`) or JOB processes (`job`, sent with `operate_process`, " +
			"or `operate_proc` when `cmd_shell_ext` is set). The task is polled until every host is done; a failed host fails the apply. " +
			"Start answering 828 (already running) and stop or kill answering 829 (not running) count as success. Destroying it does nothing remotely.\n\n" +
			"On Terraform 1.14 and later, prefer the action of the same name: it runs when invoked (`terraform apply -invoke=action.gse_process_operation.NAME`) " +
			"or when a resource changes (`action_trigger`), and leaves nothing in the state.",
		Attributes: attrs,
	}
}

// operationTargetAttributes are the arguments of the resource that the action
// shares (see actionAttributes): op, and the target in gse or job. Every
// one replaces the resource.
func operationTargetAttributes() map[string]schema.Attribute {
	jobProc := spec.JobAttributes(spec.OperateProcessFields, []string{"setup_path", "proc_name", "pid_path"}, nil)
	jobProc["ip_list"] = hosts.RefSetAttribute("Hosts to run the operation on.")
	return map[string]schema.Attribute{
		"op": schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "Operation: " + quoted(operationNames()) + " (op_type " + opTypeNumbers() + "). `status` queries the process state: the resource keeps it in `results`, the action reports each host's pid. A `start` or `restart` of a one-shot GSE process (`gse.spec.monitor_policy.auto_type = 2`) that GSE answers with 836 (post-check failed: it ran and has already exited) counts as done, with `error_code` 836 in `results`.",
			Validators:          []validator.String{stringvalidator.OneOf(operationNames()...)},
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"gse": schema.SingleNestedAttribute{
			Optional:            true,
			MarkdownDescription: "A GSE process as target. Exactly one of `gse` and `job` is required.",
			PlanModifiers:       []planmodifier.Object{replaceUnlessLabels()},
			Attributes: map[string]schema.Attribute{
				"meta": schema.SingleNestedAttribute{Required: true, MarkdownDescription: "The process.", Attributes: map[string]schema.Attribute{
					"namespace": spec.RequiredString("Namespace of the process.", plumbing.MetaName()),
					"name":      spec.RequiredString("Name of the process.", plumbing.MetaName()),
					"labels":    labelsAttribute(),
				}},
				"hosts": hosts.GSERefSetAttribute("Hosts to run the operation on."),
				"spec":  spec.NestedAttribute("Process definition that `operate_proc_v2` requires. The same type as `gse_managed_process`'s `spec`, so `spec = gse_managed_process.x.spec` works."),
			},
		},
		"rollout": rollout.Attribute("It governs the operation: each batch is one task on the batch's hosts (for `job`, on the batch's IPs of every " +
			"process that lists them). `wait_running` applies to `start`, `restart` and `reload`. The resource saves nothing when the operation fails: " +
			"the next apply runs it again on every host, in the same order; the action reports each batch as a progress message. " +
			"Changing `rollout` alone does not run the operation again."),
		"job": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "JOB processes as target, sent with `operate_process` (or `operate_proc` with `cmd_shell_ext`). Needs JOB 3.6 or earlier: " +
				"JOB 3.7 and later no longer serve these APIs (the operation fails at once saying so); use `gse` there.",
			PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
			Attributes: map[string]schema.Attribute{
				"bk_biz_id": schema.Int64Attribute{Required: true, MarkdownDescription: "Business id.", Validators: []validator.Int64{int64validator.AtLeast(0)}},
				"process_infos": schema.ListNestedAttribute{
					Required: true, MarkdownDescription: "Processes to operate (`process_infos` of `operate_proc` and `operate_process`).",
					Validators:   []validator.List{listvalidator.SizeAtLeast(1)},
					NestedObject: schema.NestedAttributeObject{Attributes: jobProc},
				},
			},
		},
	}
}

// ValidateConfig: one JOB operation goes through one API. With cmd_shell_ext
// that is operate_proc, which would drop operate_process's other fields.
func (r *processOperationResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	validateOperationTarget(ctx, req.Config, &resp.Diagnostics)
}

// validateOperationTarget checks the target of the resource or the action.
func validateOperationTarget(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) {
	var gseTarget, jobTarget types.Object
	diags.Append(config.GetAttribute(ctx, path.Root("gse"), &gseTarget)...)
	diags.Append(config.GetAttribute(ctx, path.Root("job"), &jobTarget)...)
	if !gseTarget.IsUnknown() && !jobTarget.IsUnknown() && gseTarget.IsNull() == jobTarget.IsNull() {
		diags.AddAttributeError(path.Root("gse"), "Exactly one target is required",
			"Set gse (a GSE process: meta, hosts and spec) or job (JOB processes: bk_biz_id and process_infos) as the target of the operation, not both and not neither.")
	}
	var procs types.List
	diags.Append(config.GetAttribute(ctx, path.Root("job").AtName("process_infos"), &procs)...)
	targets := rollout.ElementCount(ctx, config, path.Root("gse").AtName("hosts"))
	if !procs.IsNull() {
		targets = rollout.DistinctIPs(procs)
	}
	rollout.ValidateSize(ctx, config, path.Root("rollout"), targets, diags)
	validateOperationCommand(ctx, config, diags)
	if procs.IsNull() || procs.IsUnknown() {
		return
	}
	withExt := 0
	for _, el := range procs.Elements() {
		if obj, ok := el.(types.Object); ok && !obj.Attributes()["cmd_shell_ext"].IsNull() {
			withExt++
		}
	}
	if withExt == 0 {
		return
	}
	for i, el := range procs.Elements() {
		obj, ok := el.(types.Object)
		if !ok || obj.IsUnknown() {
			continue
		}
		at := path.Root("job").AtName("process_infos").AtListIndex(i)
		if obj.Attributes()["cmd_shell_ext"].IsNull() {
			diags.AddAttributeError(at.AtName("cmd_shell_ext"), "cmd_shell_ext must be set on every process or none",
				"An operation goes through one JOB API: operate_proc when cmd_shell_ext is set, operate_process otherwise.")
		}
		if extra := spec.OperateProcessOnly(obj.Attributes()); len(extra) > 0 {
			diags.AddAttributeError(at, "Fields operate_proc does not take",
				fmt.Sprintf("With cmd_shell_ext the operation is sent with operate_proc, which takes only %s; unset %s or cmd_shell_ext.", quoted(spec.OperateProcFields), quoted(extra)))
		}
	}
}

func (r *processOperationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan processOperationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, cancel := plumbing.Deadline(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	taskID, results, target, err := plan.run(ctx, r.client, nil)
	if err != nil {
		plumbing.AddAPIError(&resp.Diagnostics, "run "+plan.Op.ValueString()+" on", target, err, "Nothing is saved: the next apply runs the operation again.")
		return
	}
	plan.ID, plan.TaskID = types.StringValue(taskID), types.StringValue(taskID)
	list, d := types.ListValueFrom(ctx, operationResultType, results)
	resp.Diagnostics.Append(d...)
	plan.Results = list
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// run runs the operation on its target and waits for every host, in the
// batches of its rollout (progress, when set, receives each batch's report).
// It returns the task ids (one per batch, comma-separated) and the results
// ordered by process, cloud id and IP, or the error; target names the
// process for messages either way.
func (t operationTarget) run(ctx context.Context, c *gse.Client, progress func(string)) (taskID string, results []operationResult, target fmt.Stringer, err error) {
	op := operations[t.Op.ValueString()]
	var taskIDs []string
	record := func(id string, rs []operationResult) {
		taskIDs, results = append(taskIDs, id), append(results, rs...)
	}
	if g := t.GSE; g != nil {
		target, err = g.run(ctx, c, t.Rollout.Expand(), op, progress, record)
	} else {
		target, err = t.JOB.run(ctx, c, t.Rollout.Expand(), op, progress, record)
	}
	taskID = strings.Join(taskIDs, ",")
	sort.Slice(results, func(i, j int) bool {
		a, b := results[i], results[j]
		if a.Process != b.Process {
			return a.Process.ValueString() < b.Process.ValueString()
		}
		if a.BkCloudID != b.BkCloudID {
			return a.BkCloudID.ValueInt64() < b.BkCloudID.ValueInt64()
		}
		return a.IP.ValueString() < b.IP.ValueString()
	})
	return taskID, results, target, err
}

// run runs op on the GSE process over its hosts, in the batches of ro;
// record receives each batch's task and results. It returns the process.
func (g *operationGSEModel) run(ctx context.Context, c *gse.Client, ro *rollout.Settings, op gse.OpType, progress func(string), record func(string, []operationResult)) (fmt.Stringer, error) {
	meta, diags := g.Meta.Expand(ctx)
	if diags.HasError() {
		return meta, fmt.Errorf("gse.meta.labels: %v", diags)
	}
	def := g.Spec.Expand()
	targets := plumbing.Each(g.Hosts, hosts.GSERef.Expand)
	if err := hosts.Reachable(ctx, c, targets); err != nil {
		return meta, err
	}
	st := rollout.Step[gse.Host]{What: rollout.Verb(op), Target: meta, Place: rollout.HostPlace, Progress: progress, Run: func(ctx context.Context, batch []gse.Host) error {
		out, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: batch, Op: op, Spec: def})
		if err == nil {
			record(out.TaskID, gseOperationResults(out))
		}
		return err
	}}
	if op.Info().Starts && !def.OneShot() { // a one-shot exits by design: nothing to wait for
		st.NotRunning = &rollout.RunningCheck[gse.Host]{Client: c, Query: status.GSENotRunning(c, meta)}
	}
	_, err := rollout.Run(ctx, ro, targets, st)
	return meta, err
}

// run runs op on the JOB processes over their IPs, in the batches of ro,
// each batch on its IPs of every process that lists them; record receives
// each batch's task and results. It returns the first process.
func (j *operationJOBModel) run(ctx context.Context, c *gse.Client, ro *rollout.Settings, op gse.OpType, progress func(string), record func(string, []operationResult)) (fmt.Stringer, error) {
	scope := gse.BizScope(j.BkBizID.ValueInt64())
	var procs []gse.JobProcess
	for _, p := range j.ProcessInfos {
		procs = append(procs, p.expand())
	}
	target := gse.TargetOf(scope, procs[0])
	st := rollout.Step[gse.JobIP]{What: rollout.Verb(op), Target: target, Place: rollout.JobIPPlace, Progress: progress, Run: func(ctx context.Context, batch []gse.JobIP) error {
		out, err := c.Job.Operate(ctx, scope, op, spec.JobProcsOn(procs, batch))
		if err == nil {
			record(out.TaskID, jobOperationResults(out))
		}
		return err
	}}
	if op.Info().Starts {
		st.NotRunning = &rollout.RunningCheck[gse.JobIP]{Client: c, Query: status.JobProcsNotRunning(c, scope, procs)}
	}
	_, err := rollout.Run(ctx, ro, spec.JobIPs(procs), st)
	return target, err
}

// gseOperationResults lists a GSE outcome's hosts with what their content says.
func gseOperationResults(out *gse.Outcome) []operationResult {
	results := make([]operationResult, 0, len(out.Hosts))
	for _, h := range out.Hosts {
		st, err := gse.ParseContent(h.Content)
		res := operationResultOf(h.Meta.String(), h.Host.IP, h.Host.BkCloudID, h.HostResult, st, err)
		if h.Host.AgentID != "" {
			res.AgentID = types.StringValue(h.Host.AgentID)
		}
		results = append(results, res)
	}
	return results
}

// jobOperationResults lists a JOB outcome's IPs; the client read their content.
func jobOperationResults(out *gse.JobOutcome) []operationResult {
	results := make([]operationResult, 0, len(out.IPs))
	for _, o := range out.IPs {
		results = append(results, operationResultOf(o.Process, o.IP.IP, o.IP.BkCloudID, o.HostResult, o.Status, o.ContentErr))
	}
	return results
}

// operationResultOf is one result: pid and version from a status answer's
// instances (all judged, see gse.Status), managed from whatever says isAuto.
func operationResultOf(process, ip string, cloud int64, r gse.HostResult, st gse.Status, contentErr error) operationResult {
	res := operationResult{
		Process: types.StringValue(process), IP: types.StringValue(ip), BkCloudID: types.Int64Value(cloud), AgentID: types.StringNull(),
		ErrorCode: types.Int64Value(int64(r.ErrorCode)), ErrorMsg: types.StringValue(r.ErrorMsg), Content: types.StringValue(r.Content),
		PID: types.Int64Null(), Managed: types.BoolNull(), Version: types.StringNull(),
	}
	if contentErr != nil {
		return res
	}
	if len(st.Instances) > 0 {
		res.PID, res.Version = types.Int64Value(st.PID()), types.StringValue(st.Version())
	}
	if h := st.Hosted(); h != nil {
		res.Managed = types.BoolValue(*h)
	}
	return res
}

// Read keeps the state: an operation has nothing to read back.
func (r *processOperationResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {
}

// Update happens only when timeouts or rollout change: everything else replaces.
func (r *processOperationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan processOperationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete does nothing remotely: the operation ran.
func (r *processOperationResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}

// operationResultType is the element type of results.
var operationResultType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"process": types.StringType, "ip": types.StringType, "bk_cloud_id": types.Int64Type, "agent_id": types.StringType, "error_code": types.Int64Type,
	"error_msg": types.StringType, "content": types.StringType, "pid": types.Int64Type, "managed": types.BoolType, "version": types.StringType,
}}
