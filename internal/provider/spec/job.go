package spec

import (
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// jobField is one process_infos field of the JOB APIs (operate_proc, operate_process),
// described once for every schema that carries it.
type jobField struct {
	Desc    string
	integer bool
	Strs    []validator.String
	Ints    []validator.Int64
}

var cmdShellExts = []string{"sh", "bat", "ps1"}

// absPath is the check of every path field: JOB joins setup_path and proc_name, and the agent runs from it.
var absPath = []validator.String{plumbing.AbsolutePath()}

// JobFields are the process_infos fields of JOB's operate_process, by attribute name.
var JobFields = map[string]jobField{
	"setup_path": {Desc: "Directory of the process (absolute path), such as `/usr/local/gse/plugins/bin`.", Strs: absPath},
	"proc_name":  {Desc: "Process (binary) name, such as `nginx`."},
	"pid_path":   {Desc: "PID file of the process (absolute path); the agent reads it to find the process.", Strs: absPath},
	"account":    {Desc: "System account the agent runs the process and its commands as; JOB uses `root` when unset."},
	"cmd_shell_ext": {Desc: "Extension of JOB's control scripts, the same for every IP: `sh` (Linux or cygwin), `bat` or `ps1` (Windows). " +
		"Setting it sends the operation with `operate_proc` instead of `operate_process`, and the JOB server then ignores any command written here: " +
		"it runs `cd {setup_path} && ./start.{ext} {proc_name} &` (likewise `stop`, `restart` and `reload`; for `bat` and `ps1` without `./` and `&`), " +
		"sets no kill command, registers the process as resident (`type` 1, one instance, `value_key` the full path `{setup_path}/{proc_name}`), " +
		"and replaces a `cpu_lmt` or `mem_lmt` outside 0-100 with 50 / 30. The provider always sends both limits: `0` (no limit) when unset, " +
		"which is also what the open-source JOB server reads for an absent one. `operate_proc` takes no other optional field than `account`, `cpu_lmt` and `mem_lmt`.",
		Strs: []validator.String{stringvalidator.OneOf(cmdShellExts...)}},
	"contact":     {Desc: "Contact (owner) of the process."},
	"cfg_path":    {Desc: "Configuration file or directory (absolute path).", Strs: absPath},
	"log_path":    {Desc: "Log directory (absolute path).", Strs: absPath},
	"start_cmd":   {Desc: "Start command."},
	"stop_cmd":    {Desc: "Stop command."},
	"restart_cmd": {Desc: "Restart command."},
	"reload_cmd":  {Desc: "Reload command."},
	"kill_cmd":    {Desc: "Kill command."},
	"func_id":     {Desc: "Process function id defined in CMDB (internal; may stay unset)."},
	"instance_id": {Desc: "Process instance id defined in CMDB (internal; may stay unset)."},
	"value_key":   {Desc: "Index of the process in the agent; unset means `setup_path` + `proc_name`. Set it when two hosted processes share both."},
	"type": {Desc: "Hosting type: " + autoTypeDescription() + ". A periodic process needs `cycle_time`; " +
		"`operate_process` sends `0` (periodic) when unset.", integer: true, Ints: []validator.Int64{plumbing.NamedInts(AutoTypes)}},
	"cpu_lmt":                {Desc: "CPU limit in percent, 0 to 100 (`0`: no limit, what JOB sends when unset); above it the agent stops the process.", integer: true, Ints: []validator.Int64{plumbing.ZeroTo(100)}},
	"mem_lmt":                {Desc: "Memory limit in percent, 0 to 100 (`0`: no limit, what JOB sends when unset); above it the agent stops the process.", integer: true, Ints: []validator.Int64{plumbing.ZeroTo(100)}},
	"cycle_time":             {Desc: "Period, in seconds, of a periodic process (`type = 0`).", integer: true, Ints: []validator.Int64{int64validator.AtLeast(1)}},
	"instance_num":           {Desc: "Number of instances of the process.", integer: true, Ints: []validator.Int64{int64validator.AtLeast(0)}},
	"op_timeout":             {Desc: "Timeout of each command, in seconds.", integer: true, Ints: []validator.Int64{int64validator.AtLeast(0)}},
	"start_check_begin_time": {Desc: "Seconds after a start before the agent begins checking the process.", integer: true, Ints: []validator.Int64{int64validator.AtLeast(0)}},
	"start_check_end_time": {Desc: "Seconds after a start when the agent stops checking the process. " +
		"The open-source JOB server's `operate_process` sends `start_check_begin_time` in its place.", integer: true, Ints: []validator.Int64{int64validator.AtLeast(0)}},
}

// The fields of each JOB API's process_infos, ip_list aside.
var (
	// HostingFields are gse_job_managed_process's: operate_process's without account (its own attribute) and cmd_shell_ext.
	HostingFields = []string{"setup_path", "proc_name", "pid_path", "cfg_path", "log_path", "contact", "start_cmd", "stop_cmd", "restart_cmd",
		"reload_cmd", "kill_cmd", "func_id", "instance_id", "value_key", "type", "cycle_time", "instance_num", "start_check_begin_time",
		"start_check_end_time", "op_timeout", "cpu_lmt", "mem_lmt"}
	OperateProcessFields = []string{"setup_path", "proc_name", "pid_path", "cfg_path", "log_path", "contact", "start_cmd", "stop_cmd", "restart_cmd",
		"reload_cmd", "kill_cmd", "func_id", "instance_id", "value_key", "type", "cycle_time", "instance_num", "start_check_begin_time",
		"start_check_end_time", "op_timeout", "account", "cpu_lmt", "mem_lmt", "cmd_shell_ext"}
	// OperateProcFields are what operate_proc takes; the others are operate_process's alone.
	OperateProcFields = []string{"setup_path", "proc_name", "pid_path", "account", "cmd_shell_ext", "cpu_lmt", "mem_lmt"}
)

// JobAttributes builds the schema attributes of names; required ones must be
// set, and replace ones replace the resource when they change. Every string
// must be non-empty: JOB drops an empty field, so "" would plan a value that
// is never sent.
func JobAttributes(names, required, replace []string) map[string]schema.Attribute {
	out := make(map[string]schema.Attribute, len(names))
	for _, n := range names {
		f := JobFields[n]
		req := slices.Contains(required, n)
		if f.integer {
			out[n] = schema.Int64Attribute{Required: req, Optional: !req, MarkdownDescription: f.Desc, Validators: f.Ints}
			continue
		}
		a := schema.StringAttribute{Required: req, Optional: !req, MarkdownDescription: f.Desc,
			Validators: append([]validator.String{stringvalidator.LengthAtLeast(1)}, f.Strs...)}
		if slices.Contains(replace, n) {
			a.PlanModifiers = []planmodifier.String{stringplanmodifier.RequiresReplace()}
		}
		out[n] = a
	}
	return out
}

// JobDefinition holds the process_infos fields that
// gse_job_managed_process and the JOB target of gse_process_operation share
// (operate_process's); each model embeds it.
type JobDefinition struct {
	SetupPath           types.String `tfsdk:"setup_path"`
	ProcName            types.String `tfsdk:"proc_name"`
	PidPath             types.String `tfsdk:"pid_path"`
	CfgPath             types.String `tfsdk:"cfg_path"`
	LogPath             types.String `tfsdk:"log_path"`
	StartCmd            types.String `tfsdk:"start_cmd"`
	StopCmd             types.String `tfsdk:"stop_cmd"`
	RestartCmd          types.String `tfsdk:"restart_cmd"`
	ReloadCmd           types.String `tfsdk:"reload_cmd"`
	KillCmd             types.String `tfsdk:"kill_cmd"`
	FuncID              types.String `tfsdk:"func_id"`
	InstanceID          types.String `tfsdk:"instance_id"`
	ValueKey            types.String `tfsdk:"value_key"`
	Type                types.Int64  `tfsdk:"type"`
	CPULmt              types.Int64  `tfsdk:"cpu_lmt"`
	MemLmt              types.Int64  `tfsdk:"mem_lmt"`
	CycleTime           types.Int64  `tfsdk:"cycle_time"`
	InstanceNum         types.Int64  `tfsdk:"instance_num"`
	OpTimeout           types.Int64  `tfsdk:"op_timeout"`
	StartCheckBeginTime types.Int64  `tfsdk:"start_check_begin_time"`
	StartCheckEndTime   types.Int64  `tfsdk:"start_check_end_time"`
}

// Expand is the definition as a process_infos item on ips; null fields stay unset.
func (d JobDefinition) Expand(ips []gse.JobIP) gse.JobProcess {
	return gse.JobProcess{
		SetupPath: d.SetupPath.ValueString(), ProcName: d.ProcName.ValueString(), PidPath: d.PidPath.ValueString(),
		CfgPath: d.CfgPath.ValueString(), LogPath: d.LogPath.ValueString(),
		StartCmd: d.StartCmd.ValueString(), StopCmd: d.StopCmd.ValueString(), RestartCmd: d.RestartCmd.ValueString(),
		ReloadCmd: d.ReloadCmd.ValueString(), KillCmd: d.KillCmd.ValueString(),
		FuncID: d.FuncID.ValueString(), InstanceID: d.InstanceID.ValueString(), ValueKey: d.ValueKey.ValueString(),
		Type: int64Ptr(d.Type), CPULmt: int64Ptr(d.CPULmt), MemLmt: int64Ptr(d.MemLmt), CycleTime: int64Ptr(d.CycleTime),
		InstanceNum: int64Ptr(d.InstanceNum), OpTimeout: int64Ptr(d.OpTimeout),
		StartCheckBeginTime: int64Ptr(d.StartCheckBeginTime), StartCheckEndTime: int64Ptr(d.StartCheckEndTime),
		IPList: ips,
	}
}

// FlattenJobIPs is ips as ip_list holds them, the inverse of ExpandJobIPs.
func FlattenJobIPs(ips []gse.JobIP) []hosts.Ref {
	out := make([]hosts.Ref, len(ips))
	for i, ip := range ips {
		out[i] = hosts.Ref{BkCloudID: types.Int64Value(ip.BkCloudID), IP: types.StringValue(ip.IP)}
	}
	return out
}

// ExpandJobIPs is ip_list as JOB addresses it.
func ExpandJobIPs(ms []hosts.Ref) []gse.JobIP {
	out := make([]gse.JobIP, len(ms))
	for i, m := range ms {
		out[i] = m.Expand()
	}
	return out
}

// OperateProcessOnly lists the fields set in attrs (a process_infos object
// of the configuration) that operate_proc would drop.
func OperateProcessOnly(attrs map[string]attr.Value) []string {
	var out []string
	for _, n := range OperateProcessFields {
		if v, ok := attrs[n]; ok && !v.IsNull() && !slices.Contains(OperateProcFields, n) {
			out = append(out, n)
		}
	}
	return out
}

// JobIPs are the distinct IPs of procs, in order of appearance.
func JobIPs(procs []gse.JobProcess) []gse.JobIP {
	seen := map[string]bool{}
	var ips []gse.JobIP
	for _, p := range procs {
		for _, ip := range p.IPList {
			if !seen[ip.Key()] {
				seen[ip.Key()] = true
				ips = append(ips, ip)
			}
		}
	}
	return ips
}

// JobProcsOn narrows procs to the IPs of batch, dropping processes left without any.
func JobProcsOn(procs []gse.JobProcess, batch []gse.JobIP) []gse.JobProcess {
	in := map[string]bool{}
	for _, ip := range batch {
		in[ip.Key()] = true
	}
	var out []gse.JobProcess
	for _, p := range procs {
		var ips []gse.JobIP
		for _, ip := range p.IPList {
			if in[ip.Key()] {
				ips = append(ips, ip)
			}
		}
		if len(ips) > 0 {
			p.IPList = ips
			out = append(out, p)
		}
	}
	return out
}
