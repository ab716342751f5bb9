package provider

import (
	"slices"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// jobField is one process_infos field of the JOB APIs (seeds 000, 001, 003),
// described once for every schema that carries it.
type jobField struct {
	desc    string
	integer bool
	strs    []validator.String
	ints    []validator.Int64
}

var cmdShellExts = []string{"sh", "bat", "ps1"}

var jobFields = map[string]jobField{
	"setup_path":             {desc: "Directory of the process (absolute path), such as `/usr/local/gse/plugins/bin`.", strs: []validator.String{absolutePath()}},
	"proc_name":              {desc: "Process (binary) name, such as `nginx`."},
	"pid_path":               {desc: "PID file of the process (absolute path); the agent reads it to find the process.", strs: []validator.String{absolutePath()}},
	"proc_owner":             {desc: "Owner (contact person) of the process."},
	"account":                {desc: "System account the commands run as; JOB uses `root` when unset."},
	"cmd_shell_ext":          {desc: "Extension of the control scripts, the same for every IP: `sh` (Linux or cygwin), `bat` or `ps1` (Windows). Setting it sends the operation with `operate_proc` (seed 000), which takes no other optional field than `account`, `cpu_lmt` and `mem_lmt`.", strs: []validator.String{stringvalidator.OneOf(cmdShellExts...)}},
	"contact":                {desc: "Contact (owner) of the process."},
	"cfg_path":               {desc: "Configuration file or directory (absolute path).", strs: []validator.String{absolutePath()}},
	"log_path":               {desc: "Log directory (absolute path).", strs: []validator.String{absolutePath()}},
	"start_cmd":              {desc: "Start command."},
	"stop_cmd":               {desc: "Stop command."},
	"restart_cmd":            {desc: "Restart command."},
	"reload_cmd":             {desc: "Reload command."},
	"kill_cmd":               {desc: "Kill command."},
	"func_id":                {desc: "Process function id defined in CMDB (internal; may stay unset)."},
	"instance_id":            {desc: "Process instance id defined in CMDB (internal; may stay unset)."},
	"value_key":              {desc: "Index of the process in the agent; unset means `setup_path` + `proc_name`. Set it when two hosted processes share both."},
	"type":                   {desc: "Hosting type: " + autoTypeDescription() + ". A periodic process needs `cycle_time`.", integer: true, ints: []validator.Int64{int64validator.OneOf(0, 1, 2)}},
	"cpu_lmt":                {desc: "CPU limit in percent, 0 to 100; above it the agent stops the process.", integer: true, ints: []validator.Int64{int64validator.Between(0, 100)}},
	"mem_lmt":                {desc: "Memory limit in percent, 0 to 100; above it the agent stops the process.", integer: true, ints: []validator.Int64{int64validator.Between(0, 100)}},
	"cycle_time":             {desc: "Period, in seconds, of a periodic process (`type = 0`).", integer: true, ints: []validator.Int64{int64validator.AtLeast(1)}},
	"instance_num":           {desc: "Number of instances of the process.", integer: true, ints: []validator.Int64{int64validator.AtLeast(0)}},
	"op_timeout":             {desc: "Timeout of each command, in seconds.", integer: true, ints: []validator.Int64{int64validator.AtLeast(0)}},
	"start_check_begin_time": {desc: "Seconds after a start before the agent begins checking the process.", integer: true, ints: []validator.Int64{int64validator.AtLeast(0)}},
	"start_check_end_time":   {desc: "Seconds after a start when the agent stops checking the process.", integer: true, ints: []validator.Int64{int64validator.AtLeast(0)}},
}

// The fields of each JOB API's process_infos, ip_list aside.
var (
	manageProcFields = []string{"proc_name", "proc_owner", "setup_path", "pid_path", "cfg_path", "log_path", "start_cmd", "stop_cmd", "restart_cmd",
		"reload_cmd", "kill_cmd", "func_id", "instance_id", "value_key", "type", "cpu_lmt", "mem_lmt", "cycle_time", "instance_num", "op_timeout",
		"start_check_begin_time", "start_check_end_time"}
	operateProcessFields = []string{"setup_path", "proc_name", "pid_path", "cfg_path", "log_path", "contact", "start_cmd", "stop_cmd", "restart_cmd",
		"reload_cmd", "kill_cmd", "func_id", "instance_id", "value_key", "type", "cycle_time", "instance_num", "start_check_begin_time",
		"start_check_end_time", "op_timeout", "account", "cpu_lmt", "mem_lmt", "cmd_shell_ext"}
	// operateProcFields are what operate_proc (seed 000) takes; the others are operate_process's alone.
	operateProcFields = []string{"setup_path", "proc_name", "pid_path", "account", "cmd_shell_ext", "cpu_lmt", "mem_lmt"}
)

// jobAttributes builds the schema attributes of names; required ones must be
// set, and replace ones replace the resource when they change.
func jobAttributes(names, required, replace []string) map[string]schema.Attribute {
	out := make(map[string]schema.Attribute, len(names))
	for _, n := range names {
		f := jobFields[n]
		req := slices.Contains(required, n)
		if f.integer {
			out[n] = schema.Int64Attribute{Required: req, Optional: !req, MarkdownDescription: f.desc, Validators: f.ints}
			continue
		}
		a := schema.StringAttribute{Required: req, Optional: !req, MarkdownDescription: f.desc, Validators: f.strs}
		if slices.Contains(replace, n) {
			a.PlanModifiers = []planmodifier.String{stringplanmodifier.RequiresReplace()}
		}
		out[n] = a
	}
	return out
}

// jobIPListAttribute is ip_list: the hosts of a JOB process, as a set.
func jobIPListAttribute(desc string) schema.SetNestedAttribute {
	return schema.SetNestedAttribute{
		Required: true, MarkdownDescription: desc,
		Validators:   []validator.Set{setvalidator.SizeAtLeast(1), uniqueHosts{}},
		NestedObject: schema.NestedAttributeObject{Attributes: hostAttributes(false)},
	}
}

// jobProcessFrom reads a process_infos item from attribute values by name;
// fields that are absent, null or unknown stay unset.
func jobProcessFrom(attrs map[string]attr.Value) gse.JobProcess {
	str := func(n string) string {
		v, _ := attrs[n].(types.String)
		return v.ValueString()
	}
	num := func(n string) *int64 {
		v, _ := attrs[n].(types.Int64)
		return int64Ptr(v)
	}
	set, _ := attrs["ip_list"].(types.Set)
	return gse.JobProcess{
		SetupPath: str("setup_path"), ProcName: str("proc_name"), PidPath: str("pid_path"), ProcOwner: str("proc_owner"),
		Account: str("account"), CmdShellExt: str("cmd_shell_ext"), Contact: str("contact"), CfgPath: str("cfg_path"), LogPath: str("log_path"),
		StartCmd: str("start_cmd"), StopCmd: str("stop_cmd"), RestartCmd: str("restart_cmd"), ReloadCmd: str("reload_cmd"), KillCmd: str("kill_cmd"),
		FuncID: str("func_id"), InstanceID: str("instance_id"), ValueKey: str("value_key"),
		Type: num("type"), CPULmt: num("cpu_lmt"), MemLmt: num("mem_lmt"), CycleTime: num("cycle_time"), InstanceNum: num("instance_num"),
		StartCheckBeginTime: num("start_check_begin_time"), StartCheckEndTime: num("start_check_end_time"), OpTimeout: num("op_timeout"),
		IPList: jobIPs(set),
	}
}

// jobIPs reads an ip_list set, sorted by cloud id then IP.
func jobIPs(set types.Set) []gse.JobIP {
	var out []gse.JobIP
	for _, el := range set.Elements() {
		out = append(out, jobIPOf(el))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].BkCloudID != out[j].BkCloudID {
			return out[i].BkCloudID < out[j].BkCloudID
		}
		return out[i].IP < out[j].IP
	})
	return out
}

// jobIPOf reads one ip_list element.
func jobIPOf(el attr.Value) gse.JobIP {
	obj, _ := el.(types.Object)
	ip, _ := obj.Attributes()["ip"].(types.String)
	cloud, _ := obj.Attributes()["bk_cloud_id"].(types.Int64)
	return gse.JobIP{IP: ip.ValueString(), BkCloudID: cloud.ValueInt64()}
}

// jobIPAddr is the host identity of a JOB IP (see gse.Host.Addr).
func jobIPAddr(ip gse.JobIP) string { return gse.Host{IP: ip.IP, BkCloudID: ip.BkCloudID}.Addr() }

// operateProcessOnly lists the fields of p that operate_proc would drop.
func operateProcessOnly(attrs map[string]attr.Value) []string {
	var out []string
	for _, n := range operateProcessFields {
		if v, ok := attrs[n]; ok && !v.IsNull() && !slices.Contains(operateProcFields, n) {
			out = append(out, n)
		}
	}
	return out
}
