package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

type managedProcessModel struct {
	ID              types.String   `tfsdk:"id"`
	Meta            metaModel      `tfsdk:"meta"`
	Hosts           []hostModel    `tfsdk:"hosts"`
	Spec            *specModel     `tfsdk:"spec"` // null after import: GSE cannot read it back
	Managed         types.Bool     `tfsdk:"managed"`
	Running         types.Bool     `tfsdk:"running"`
	RestartTriggers types.Map      `tfsdk:"restart_triggers"`
	ReloadTriggers  types.Map      `tfsdk:"reload_triggers"`
	HostStatus      types.Map      `tfsdk:"host_status"`
	Timeouts        timeouts.Value `tfsdk:"timeouts"`
}

type metaModel struct {
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
	Labels    types.Map    `tfsdk:"labels"`
}

func (m metaModel) api(ctx context.Context) (gse.Meta, diag.Diagnostics) {
	out := gse.Meta{Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString()}
	var diags diag.Diagnostics
	if !m.Labels.IsNull() && !m.Labels.IsUnknown() {
		diags = m.Labels.ElementsAs(ctx, &out.Labels, false)
	}
	return out, diags
}

type specModel struct {
	Identity         identityModel          `tfsdk:"identity"`
	Control          controlModel           `tfsdk:"control"`
	Resource         resourceModel          `tfsdk:"resource"`
	MonitorPolicy    monitorPolicyModel     `tfsdk:"monitor_policy"`
	WarnReportPolicy *warnReportPolicyModel `tfsdk:"warn_report_policy"`
	Configmap        []configMapModel       `tfsdk:"configmap"`
}

type identityModel struct {
	IndexKey   types.String `tfsdk:"index_key"`
	ProcName   types.String `tfsdk:"proc_name"`
	SetupPath  types.String `tfsdk:"setup_path"`
	PidPath    types.String `tfsdk:"pid_path"`
	ConfigPath types.String `tfsdk:"config_path"`
	LogPath    types.String `tfsdk:"log_path"`
	User       types.String `tfsdk:"user"`
}

type controlModel struct {
	StartCmd   types.String `tfsdk:"start_cmd"`
	StopCmd    types.String `tfsdk:"stop_cmd"`
	RestartCmd types.String `tfsdk:"restart_cmd"`
	ReloadCmd  types.String `tfsdk:"reload_cmd"`
	KillCmd    types.String `tfsdk:"kill_cmd"`
	VersionCmd types.String `tfsdk:"version_cmd"`
	HealthCmd  types.String `tfsdk:"health_cmd"`
}

type resourceModel struct {
	CPU  types.Float64 `tfsdk:"cpu"`
	Mem  types.Float64 `tfsdk:"mem"`
	Fd   types.Int64   `tfsdk:"fd"`
	Disk types.Int64   `tfsdk:"disk"`
	Net  types.Int64   `tfsdk:"net"`
}

type monitorPolicyModel struct {
	AutoType       types.Int64  `tfsdk:"auto_type"`
	StartCheckSecs types.Int64  `tfsdk:"start_check_secs"`
	StopCheckSecs  types.Int64  `tfsdk:"stop_check_secs"`
	StartRetries   types.Int64  `tfsdk:"start_retries"`
	StartInterval  types.Int64  `tfsdk:"start_interval"`
	CrontabRule    types.String `tfsdk:"crontab_rule"`
	OpTimeout      types.Int64  `tfsdk:"op_timeout"`
}

type warnReportPolicyModel struct {
	ReportID types.Int64 `tfsdk:"report_id"`
}

type configMapModel struct {
	Path types.String `tfsdk:"path"`
	MD5  types.String `tfsdk:"md5"`
}

func int64Ptr(v types.Int64) *int64 {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	x := v.ValueInt64()
	return &x
}

// api converts the spec; nil stays nil (an imported resource before its first apply).
func (s *specModel) api() *gse.Spec {
	if s == nil {
		return nil
	}
	id, c, r, m := s.Identity, s.Control, s.Resource, s.MonitorPolicy
	out := &gse.Spec{
		Identity: gse.Identity{
			IndexKey: id.IndexKey.ValueString(), ProcName: id.ProcName.ValueString(), SetupPath: id.SetupPath.ValueString(),
			PidPath: id.PidPath.ValueString(), ConfigPath: id.ConfigPath.ValueString(), LogPath: id.LogPath.ValueString(), User: id.User.ValueString(),
		},
		Control: gse.Control{
			StartCmd: c.StartCmd.ValueString(), StopCmd: c.StopCmd.ValueString(), RestartCmd: c.RestartCmd.ValueString(),
			ReloadCmd: c.ReloadCmd.ValueString(), KillCmd: c.KillCmd.ValueString(), VersionCmd: c.VersionCmd.ValueString(), HealthCmd: c.HealthCmd.ValueString(),
		},
		Resource: &gse.Resource{CPU: r.CPU.ValueFloat64(), Mem: r.Mem.ValueFloat64(), Fd: int64Ptr(r.Fd), Disk: int64Ptr(r.Disk), Net: int64Ptr(r.Net)},
		MonitorPolicy: &gse.MonitorPolicy{
			AutoType: m.AutoType.ValueInt64(), StartCheckSecs: int64Ptr(m.StartCheckSecs), StopCheckSecs: int64Ptr(m.StopCheckSecs),
			StartRetries: int64Ptr(m.StartRetries), StartInterval: int64Ptr(m.StartInterval), CrontabRule: m.CrontabRule.ValueString(),
			OpTimeout: int64Ptr(m.OpTimeout),
		},
	}
	if w := s.WarnReportPolicy; w != nil {
		out.WarnReportPolicy = &gse.WarnReportPolicy{ReportID: w.ReportID.ValueInt64()}
	}
	for _, cm := range s.Configmap {
		out.Configmap = append(out.Configmap, gse.ConfigMap{Path: cm.Path.ValueString(), MD5: cm.MD5.ValueString()})
	}
	return out
}

// hostStatusValue builds host_status for hosts from their status entries (see statusByAddr).
func hostStatusValue(hosts []hostModel, byAddr map[string]gse.ProcStatus) (types.Map, diag.Diagnostics) {
	elems := map[string]attr.Value{}
	var diags diag.Diagnostics
	for _, h := range hosts {
		a := h.api()
		e, ok := byAddr[a.Addr()]
		if !ok {
			continue
		}
		obj, d := types.ObjectValue(hostStatusType.AttrTypes, map[string]attr.Value{
			"status": types.StringValue(statusName(e.Status)), "managed": types.BoolValue(e.IsAuto),
			"pid": types.Int64Value(e.PID), "version": types.StringValue(e.Version), "last_start_time": types.Int64Value(e.LastStartTime),
		})
		diags.Append(d...)
		elems[hostKey(a)] = obj
	}
	m, d := types.MapValue(hostStatusType, elems)
	diags.Append(d...)
	return m, diags
}

// hostKey is the key of a host in host_status: bk_cloud_id:ip, as written in the configuration.
func hostKey(h gse.Host) string {
	return fmt.Sprintf("%d:%s", h.BkCloudID, h.IP)
}
