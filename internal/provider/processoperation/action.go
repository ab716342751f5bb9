package processoperation

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

var (
	_ action.ActionWithConfigure      = (*processOperationAction)(nil)
	_ action.ActionWithValidateConfig = (*processOperationAction)(nil)
)

// processOperationAction runs a process operation when invoked (Terraform
// 1.14+): the resource gse_process_operation without the state. Arguments,
// validation and the run are the resource's (operationTarget), and it has
// one target more, a whole gse_service, which operateService runs.
type processOperationAction struct {
	client         *gse.Client
	operateService ServiceOperator
}

// ServiceOperator restarts or reloads the gse_service whose value service
// is, sending progress a line per batch. The provider gives the service
// family's (this family does not know it).
type ServiceOperator func(ctx context.Context, c *gse.Client, service types.Dynamic, op gse.OpType, progress func(string)) diag.Diagnostics

// NewAction is gse_process_operation, the action, whose service target
// operate runs.
func NewAction(operate ServiceOperator) func() action.Action {
	return func() action.Action { return &processOperationAction{operateService: operate} }
}

type processOperationActionModel struct {
	operationTarget
	Service types.Dynamic `tfsdk:"service"`
	Timeout types.String  `tfsdk:"timeout"`
}

// serviceOps are the operations the service target takes.
var serviceOps = []string{"restart", "reload"}

func (a *processOperationAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_process_operation"
}

func (a *processOperationAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.client = plumbing.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

func (a *processOperationAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := actionAttributes(operationTargetAttributes())
	attrs["timeout"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "How long the operation may take, as a positive duration such as `30s` or `15m`. Defaults to `10m`; " +
			"hosts still pending then fail the action, named.",
		Validators: []validator.String{plumbing.Duration()},
	}
	attrs["service"] = schema.DynamicAttribute{
		Optional: true,
		MarkdownDescription: "A whole `gse_service` as target, as `service = gse_service.NAME`: `restart` or `reload` (only) every instance of it but those in its `hold`, " +
			"as its release runs them: in its tiers (a restart in descending CMDB priority, a reload in ascending), its `rollout` batches, its canary first (then the rest, " +
			"once it baked: `promote` does not hold an invocation), each batch behind its `health` gate, and without `update_proc_info` (the spec GSE holds is kept, " +
			"as GSEKit's restart and reload do). Each batch is a progress message; an instance that fails fails the action, named, and stops it as `max_fail_percentage` says. " +
			"`gse`, `job` and `rollout` are then unset.",
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runs a process operation (" + quoted(operationNames()) + ") on a GSE process (`gse`, sent with `operate_proc_v2`) " +
			"or on JOB processes (`job`, sent with `operate_process`, or `operate_proc` when `cmd_shell_ext` is set), and waits for every host; " +
			"or restarts or reloads a whole `gse_service` (`service`) in its tiers, batches, canary and health gates. " +
			"Each host's result is reported as it arrives; a failed host fails the action, and the error names every failed host with its GSE code. " +
			"Start answering 828 (already running) and stop or kill answering 829 (not running) count as success. Nothing is kept in the state.\n\n" +
			"Run it with `terraform apply -invoke=action.gse_process_operation.NAME`, or from a resource's `lifecycle { action_trigger { ... } }`, " +
			"for example to restart a process after its `gse_managed_process` is updated. Needs Terraform 1.14 or later; " +
			"on older CLIs (and OpenTofu) use the resource `gse_process_operation`.",
		Attributes: attrs,
	}
}

func (a *processOperationAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var svc types.Dynamic
	if resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("service"), &svc)...); resp.Diagnostics.HasError() {
		return
	}
	if svc.IsNull() {
		validateOperationTarget(ctx, req.Config, &resp.Diagnostics)
		return
	}
	var t operationTarget
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("op"), &t.Op)...)
	for _, other := range []string{"gse", "job", "rollout"} {
		var v attr.Value
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(other), &v)...)
		if v != nil && !v.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root(other), "Exactly one target is required",
				fmt.Sprintf("service is the target: unset %s (the service's own rollout governs its batches).", other))
		}
	}
	if op := t.Op.ValueString(); !t.Op.IsUnknown() && !slices.Contains(serviceOps, op) {
		resp.Diagnostics.AddAttributeError(path.Root("op"), "Operation not available on a service",
			fmt.Sprintf("op %q on a gse_service: it takes %s, which its release runs in its tiers and batches; apply the service for the rest.", op, quoted(serviceOps)))
	}
}

func (a *processOperationAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var cfg processOperationActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout := plumbing.DefaultTimeout
	if d, err := time.ParseDuration(cfg.Timeout.ValueString()); err == nil && d > 0 {
		timeout = d
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	op := cfg.Op.ValueString()
	if !cfg.Service.IsNull() {
		resp.Diagnostics.Append(a.operateService(ctx, a.client, cfg.Service, operations[op], func(msg string) {
			resp.SendProgress(action.InvokeProgressEvent{Message: msg})
		})...)
		return
	}
	var mu sync.Mutex
	done, total := 0, cfg.hostCount()
	ctx = gse.WithProgress(ctx, func(o gse.HostOutcome) {
		mu.Lock()
		defer mu.Unlock()
		done++
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("%s %s: %s [%d/%d]", op, o.Meta, hostProgress(o), done, total)})
	})
	taskID, results, target, err := cfg.run(ctx, a.client, func(msg string) { // each batch of a rollout
		mu.Lock()
		defer mu.Unlock()
		resp.SendProgress(action.InvokeProgressEvent{Message: msg})
	})
	if err != nil {
		plumbing.AddAPIError(&resp.Diagnostics, "run "+op+" on", target, err, "Invoke the action again once the cause is fixed; hosts where it succeeded run it again too.")
		return
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("%s %s: done on %s (task %s)", op, target, plumbing.HostCount(len(results)), taskID)})
}

// hostCount is how many results the operation waits for: one per host, or per process and IP.
func (t operationTarget) hostCount() int {
	if t.GSE != nil {
		return len(t.GSE.Hosts)
	}
	n := 0
	for _, p := range t.JOB.ProcessInfos {
		n += len(p.IPList)
	}
	return n
}

// hostProgress is one host's result in a progress message.
func hostProgress(o gse.HostOutcome) string {
	switch {
	case !o.OK():
		return fmt.Sprintf("%s failed, GSE code %d: %s", o.Host, o.ErrorCode, o.ErrorMsg)
	case o.ErrorCode != gse.HostOK:
		return fmt.Sprintf("%s ok (GSE code %d: %s)", o.Host, o.ErrorCode, o.ErrorMsg)
	case o.Op == gse.OpStatus:
		if st, err := gse.ParseContent(o.Content); err == nil && len(st.Instances) > 0 {
			return fmt.Sprintf("%s ok, pid %d", o.Host, st.PID())
		}
	}
	return o.Host.String() + " ok"
}
