package service

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/cmdbfilter"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

// serviceModel is gse_service.
type serviceModel struct {
	ID              types.String                 `tfsdk:"id"`
	BkBizID         types.Int64                  `tfsdk:"bk_biz_id"`
	Processes       packedMap[processesSchema]   `tfsdk:"processes"`
	Instances       packedMap[instancesSchema]   `tfsdk:"instances"`
	Running         types.Bool                   `tfsdk:"running"`
	Order           *orderModel                  `tfsdk:"order"`
	Rollout         *rolloutModel                `tfsdk:"rollout"`
	Health          *healthModel                 `tfsdk:"health"`
	RestartTriggers types.Map                    `tfsdk:"restart_triggers"`
	ReloadTriggers  types.Map                    `tfsdk:"reload_triggers"`
	ConfigFiles     packedMap[configFilesSchema] `tfsdk:"config_files"`
	Hold            types.Set                    `tfsdk:"hold"`
	AgentAbnormal   types.String                 `tfsdk:"agent_abnormal"`
	Revision        types.String                 `tfsdk:"revision"`
	PromoteRevision types.String                 `tfsdk:"promote_revision"`
	CanaryRevision  types.String                 `tfsdk:"canary_revision"`
	Schedule        types.List                   `tfsdk:"schedule"`
	FailedCount     types.Int64                  `tfsdk:"failed_count"`
	PendingCount    types.Int64                  `tfsdk:"pending_count"`
	Timeouts        timeouts.Value               `tfsdk:"timeouts"`
}

// groupModel is an element of processes: one GSE process on its hosts.
type groupModel struct {
	Meta     spec.Meta   `tfsdk:"meta"`
	Spec     spec.Model  `tfsdk:"spec"`
	Hosts    types.List  `tfsdk:"hosts"` // of groupHost: hostsOf
	Priority types.Int64 `tfsdk:"priority"`
}

// groupHost is an element of a group's hosts: the host, and the CMDB facts
// of the group's instance on it (gse_cmdb_processes.groups gives them).
type groupHost struct {
	hosts.Model
	BkHostID   types.Int64 `tfsdk:"bk_host_id"`
	BkSetID    types.Int64 `tfsdk:"bk_set_id"`
	BkModuleID types.Int64 `tfsdk:"bk_module_id"`
	BindInfo   types.List  `tfsdk:"bind_info"`
}

// orderModel is order: the tiers.
type orderModel struct {
	By        types.String `tfsdk:"by"`
	IsolateBy types.String `tfsdk:"isolate_by"`
}

// rolloutModel is rollout: the batches within each tier.
type rolloutModel struct {
	BatchSize         types.String `tfsdk:"batch_size"`
	MaxFailPercentage types.Int64  `tfsdk:"max_fail_percentage"`
	Pause             types.String `tfsdk:"pause"`
	Canary            *canaryModel `tfsdk:"canary"`
	AutoRevert        types.Bool   `tfsdk:"auto_revert"`
	Paused            types.Bool   `tfsdk:"paused"`
	ProgressDeadline  types.String `tfsdk:"progress_deadline"`
}

// canaryModel is rollout.canary.
type canaryModel struct {
	Size    types.String `tfsdk:"size"`
	Select  *selectModel `tfsdk:"select"`
	Bake    types.String `tfsdk:"bake"`
	Promote types.String `tfsdk:"promote"`
}

// healthModel is health: the gate after each batch.
type healthModel struct {
	RunningFor      types.String `tfsdk:"running_for"`
	HealthyDeadline types.String `tfsdk:"healthy_deadline"`
	TCP             *tcpModel    `tfsdk:"tcp"`
	Script          *scriptModel `tfsdk:"script"`
}

// tcpModel is health.tcp.
type tcpModel struct {
	Ports types.String `tfsdk:"ports"`
}

// scriptModel is health.script.
type scriptModel struct {
	Content types.String `tfsdk:"content"`
	Account types.String `tfsdk:"account"`
	Timeout types.String `tfsdk:"timeout"`
}

// instanceModel is an element of instances: what gse_cmdb_processes.instances
// says of it (or what processes gives, when instances is unset) and what the
// provider planned and found.
type instanceModel struct {
	Group             types.String `tfsdk:"group"`
	Name              types.String `tfsdk:"name"`
	Host              *hosts.Model `tfsdk:"host"`
	BkHostID          types.Int64  `tfsdk:"bk_host_id"`
	BkProcessID       types.Int64  `tfsdk:"bk_process_id"`
	BkSetID           types.Int64  `tfsdk:"bk_set_id"`
	BkModuleID        types.Int64  `tfsdk:"bk_module_id"`
	ServiceInstanceID types.Int64  `tfsdk:"service_instance_id"`
	LocalInstID       types.Int64  `tfsdk:"local_inst_id"`
	Priority          types.Int64  `tfsdk:"priority"`
	BindInfo          types.List   `tfsdk:"bind_info"`
	Tier              types.Int64  `tfsdk:"tier"`
	Batch             types.Int64  `tfsdk:"batch"`
	Action            types.String `tfsdk:"action"`
	Status            types.String `tfsdk:"status"`
	Code              types.Int64  `tfsdk:"code"`
	Message           types.String `tfsdk:"message"`
	PID               types.Int64  `tfsdk:"pid"`
	Config            types.Map    `tfsdk:"config"`
}

// configFileModel is an element of config_files.
type configFileModel struct {
	Instance         types.String `tfsdk:"instance"`
	Group            types.String `tfsdk:"group"`
	Path             types.String `tfsdk:"path"`
	FileName         types.String `tfsdk:"file_name"`
	Account          types.String `tfsdk:"account"`
	Content          types.String `tfsdk:"content"`
	ContentWO        types.String `tfsdk:"content_wo"`
	ContentWOVersion types.String `tfsdk:"content_wo_version"`
	OnChange         types.String `tfsdk:"on_change"`
	Verify           types.Bool   `tfsdk:"verify"`
}

// selectModel is rollout.canary.select.
type selectModel struct {
	BkSetIDs             types.Set         `tfsdk:"bk_set_ids"`
	BkModuleIDs          types.Set         `tfsdk:"bk_module_ids"`
	BkHostIDs            types.Set         `tfsdk:"bk_host_ids"`
	SetPropertyFilter    *cmdbfilter.Model `tfsdk:"set_property_filter"`
	ModulePropertyFilter *cmdbfilter.Model `tfsdk:"module_property_filter"`
	HostPropertyFilter   *cmdbfilter.Model `tfsdk:"host_property_filter"`
}

// tierModel is an element of schedule.
type tierModel struct {
	Tier      types.Int64  `tfsdk:"tier"`
	Direction types.String `tfsdk:"direction"`
	Priority  types.Int64  `tfsdk:"priority"`
	Batches   [][]string   `tfsdk:"batches"`
	Canary    types.Bool   `tfsdk:"canary"`
}
