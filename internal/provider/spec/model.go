package spec

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Model is the spec attribute (its schema is Schema): what GSE needs to run
// the process; Expand is the spec as GSE takes it.
type Model struct {
	Identity         identityModel          `tfsdk:"identity"`
	Control          controlModel           `tfsdk:"control"`
	Resource         resourceLimitsModel    `tfsdk:"resource"`
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

// resourceLimitsModel is spec.resource: the CPU and memory limits of the process.
type resourceLimitsModel struct {
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

// int64Or is v, or def when v is unset: the documented API defaults are applied
// here rather than with schema defaults.
func int64Or(v types.Int64, def int64) *int64 {
	if p := int64Ptr(v); p != nil {
		return p
	}
	return &def
}

// Expand converts the spec; nil stays nil (an imported resource before its first apply).
func (s *Model) Expand() *gse.Spec {
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
			AutoType: m.AutoType.ValueInt64(), StartCheckSecs: int64Or(m.StartCheckSecs, DefaultStartCheckSecs), StopCheckSecs: int64Ptr(m.StopCheckSecs),
			StartRetries: int64Or(m.StartRetries, defaultStartRetries), StartInterval: int64Or(m.StartInterval, defaultStartInterval),
			CrontabRule: m.CrontabRule.ValueString(), OpTimeout: int64Or(m.OpTimeout, DefaultOpTimeout),
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

// Flatten is the spec attribute of s, as Expand would send it back: empty
// strings and unset numbers null.
func Flatten(s *gse.Spec) Model {
	str := func(v string) types.String {
		if v == "" {
			return types.StringNull()
		}
		return types.StringValue(v)
	}
	i64 := func(v *int64) types.Int64 { return types.Int64PointerValue(v) }
	id, c := s.Identity, s.Control
	m := Model{
		Identity: identityModel{IndexKey: str(id.IndexKey), ProcName: str(id.ProcName), SetupPath: str(id.SetupPath), PidPath: str(id.PidPath),
			ConfigPath: str(id.ConfigPath), LogPath: str(id.LogPath), User: str(id.User)},
		Control: controlModel{StartCmd: str(c.StartCmd), StopCmd: str(c.StopCmd), RestartCmd: str(c.RestartCmd), ReloadCmd: str(c.ReloadCmd),
			KillCmd: str(c.KillCmd), VersionCmd: str(c.VersionCmd), HealthCmd: str(c.HealthCmd)},
		Resource: resourceLimitsModel{CPU: types.Float64Value(0), Mem: types.Float64Value(0), Fd: types.Int64Null(), Disk: types.Int64Null(), Net: types.Int64Null()},
	}
	if r := s.Resource; r != nil {
		m.Resource = resourceLimitsModel{CPU: types.Float64Value(r.CPU), Mem: types.Float64Value(r.Mem), Fd: i64(r.Fd), Disk: i64(r.Disk), Net: i64(r.Net)}
	}
	if p := s.MonitorPolicy; p != nil {
		m.MonitorPolicy = monitorPolicyModel{AutoType: types.Int64Value(p.AutoType), StartCheckSecs: i64(p.StartCheckSecs), StopCheckSecs: i64(p.StopCheckSecs),
			StartRetries: i64(p.StartRetries), StartInterval: i64(p.StartInterval), CrontabRule: str(p.CrontabRule), OpTimeout: i64(p.OpTimeout)}
	}
	return m
}

// Command is the spec.control command name (start_cmd, stop_cmd, ...), null
// when the spec has no such command.
func (s Model) Command(name string) types.String {
	c := s.Control
	cmd, ok := map[string]types.String{
		"start_cmd": c.StartCmd, "stop_cmd": c.StopCmd, "restart_cmd": c.RestartCmd, "reload_cmd": c.ReloadCmd,
		"kill_cmd": c.KillCmd, "version_cmd": c.VersionCmd, "health_cmd": c.HealthCmd,
	}[name]
	if !ok {
		return types.StringNull()
	}
	return cmd
}
