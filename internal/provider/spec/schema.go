package spec

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// This file holds the schema of a process's spec, shared by
// gse_managed_process (packed there: Value) and
// gse_process_operation, and the attribute helpers it is written with.

// Documented defaults of the monitor policy (register_proc_info and operate_proc_v2).
const (
	DefaultStartCheckSecs = 5
	defaultStartRetries   = 4
	defaultStartInterval  = 10
	DefaultOpTimeout      = 60
)

// AutoTypes are GSE's hosting types, in the order of their numbers.
var AutoTypes = []string{"periodic", "resident", "one-shot"}

func autoTypeDescription() string {
	parts := make([]string, len(AutoTypes))
	for i, t := range AutoTypes {
		parts[i] = fmt.Sprintf("`%d` %s", i, t)
	}
	return strings.Join(parts, ", ")
}

func optionalString(desc string, v ...validator.String) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, MarkdownDescription: desc, Validators: v}
}

// RequiredString is a required string attribute with desc and validators.
func RequiredString(desc string, v ...validator.String) schema.StringAttribute {
	return schema.StringAttribute{Required: true, MarkdownDescription: desc, Validators: v}
}

// nonNegative is an optional count. A documented API default (def >= 0) is
// applied when the spec is sent (Model.Expand), not with a schema Default:
// defaults run on every plan of every resource, and the state keeps what the
// configuration says.
func nonNegative(desc string, def int64) schema.Int64Attribute {
	a := schema.Int64Attribute{Optional: true, MarkdownDescription: desc, Validators: []validator.Int64{int64validator.AtLeast(0)}}
	if def >= 0 {
		a.MarkdownDescription += fmt.Sprintf(" When unset, `%d` is sent.", def)
	}
	return a
}

// NestedAttribute is spec as a nested attribute, as Terraform sees it
// and, unpacked, as gse_process_operation holds it.
func NestedAttribute(desc string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Required:            true,
		MarkdownDescription: desc,
		Attributes: map[string]schema.Attribute{
			"identity":           identityAttribute(),
			"control":            controlAttribute(),
			"resource":           resourceAttribute(),
			"monitor_policy":     monitorPolicyAttribute(),
			"warn_report_policy": warnReportPolicyAttribute(),
			"configmap":          configmapAttribute(),
		},
	}
}

// identityAttribute is spec.identity: what the process is and where it lives.
func identityAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Required: true, MarkdownDescription: "What the process is and where it lives.",
		Attributes: map[string]schema.Attribute{
			"index_key":   optionalString("Agent index key; leave unset to let GSE use `setup_path` + `proc_name`. Set it when two processes share both."),
			"proc_name":   RequiredString("Binary file name of the process, such as `nginx`; not empty.", identityRule("proc_name")...),
			"setup_path":  RequiredString("Working directory (absolute path).", identityRule("setup_path")...),
			"pid_path":    RequiredString("PID file (absolute path); the agent reads it to find the process.", identityRule("pid_path")...),
			"config_path": optionalString("Configuration file (absolute path).", identityRule("config_path")...),
			"log_path":    optionalString("Log directory (absolute path).", identityRule("log_path")...),
			"user":        RequiredString("System account the process runs as, such as `root` or `Administrator`; not empty.", identityRule("user")...),
		},
	}
}

// controlAttribute is spec.control: the commands of each operation.
func controlAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Required: true, MarkdownDescription: "Commands the agent runs in `setup_path`. Each operation needs its command, as GSEKit requires it: " +
			"a configuration that runs an operation whose command is unset or empty fails at plan, naming the process and the command, " +
			"instead of failing on every host at apply; a command no operation runs may stay unset.",
		Attributes: map[string]schema.Attribute{
			"start_cmd":   optionalString("Start command (op_type 0), such as `./start.sh`. Required to start (`running = true`) and to host (`managed = true`, the default: the agent pulls the process up again with it)."),
			"stop_cmd":    optionalString("Stop command (op_type 1). Required with `running = false` and by `op = \"stop\"`. Without it the process can still be started and hosted, but where it is removed (a destroy, a host leaving) it is unhosted and unregistered and keeps running; the plan warns."),
			"restart_cmd": optionalString("Restart command (op_type 7), run when `restart_triggers` change; required with `restart_triggers` and by `op = \"restart\"`."),
			"reload_cmd":  optionalString("Reload command (op_type 8), run when `reload_triggers` change; required with `reload_triggers` and by `op = \"reload\"`."),
			"kill_cmd":    optionalString("Kill command (op_type 9). Required by `op = \"kill\"`."),
			"version_cmd": optionalString("Command printing the process version."),
			"health_cmd":  optionalString("Health check command."),
		},
	}
}

// resourceAttribute is spec.resource: the limits the agent enforces.
func resourceAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Required: true, MarkdownDescription: "Limits beyond which the agent kills a hosted process. Through the GSE 2.0 gateway a block whose limits are all 0 is not sent (no limit), as GSEKit sends none; ESB's `register_proc_info` and `update_proc_info` require the block and get it as written, zeros included.",
		Attributes: map[string]schema.Attribute{
			"cpu": schema.Float64Attribute{
				Required: true, MarkdownDescription: "CPU usage limit in percent of the whole machine (not of one core), 0 to 100; `30.0` means 30%.",
				Validators: []validator.Float64{plumbing.ZeroTo(100)},
			},
			"mem": schema.Float64Attribute{
				Required: true, MarkdownDescription: "Memory usage limit in percent, 0 to 100.",
				Validators: []validator.Float64{plumbing.ZeroTo(100)},
			},
			"fd":   nonNegative("File descriptor limit (reserved by GSE).", -1),
			"disk": nonNegative("Disk usage limit (reserved by GSE).", -1),
			"net":  nonNegative("Network traffic limit (reserved by GSE).", -1),
		},
	}
}

// monitorPolicyAttribute is spec.monitor_policy: how the agent watches the process.
func monitorPolicyAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Required: true, MarkdownDescription: "How the agent watches the process (`alive_monitor_policy` in the v2 operation API).",
		Attributes: map[string]schema.Attribute{
			"auto_type": schema.Int64Attribute{
				Required:            true,
				MarkdownDescription: "Hosting type: " + autoTypeDescription() + ".",
				Validators:          []validator.Int64{plumbing.NamedInts(AutoTypes)},
			},
			"start_check_secs": nonNegative("Seconds after the start command before the agent checks the process is alive.", DefaultStartCheckSecs),
			"stop_check_secs":  nonNegative("Seconds after the stop command before the agent checks the process is gone.", -1),
			"start_retries":    nonNegative("How many times the agent tries to pull the process up again.", defaultStartRetries),
			"start_interval":   nonNegative("Seconds between the agent's attempts to pull the process up.", defaultStartInterval),
			"crontab_rule":     optionalString("Schedule of a periodic process (`auto_type = 0`), in crontab syntax; ignored otherwise (reserved by GSE). A periodic process without it plans with a warning."),
			"op_timeout":       nonNegative("Timeout of each command, in seconds.", DefaultOpTimeout),
		},
	}
}

// warnReportPolicyAttribute is spec.warn_report_policy: the alarm raised for the process.
func warnReportPolicyAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true, MarkdownDescription: "Alarm raised for the process.",
		Attributes: map[string]schema.Attribute{
			"report_id": nonNegative("Alarm id.", -1),
		},
	}
}

// configmapAttribute is spec.configmap: the configuration files GSE reserves a place for.
func configmapAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true, MarkdownDescription: "Configuration files of the process (reserved by GSE).",
		Validators: []validator.List{listvalidator.SizeAtLeast(1)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"path": optionalString("Configuration file (absolute path).", plumbing.AbsolutePath()),
			"md5":  optionalString("MD5 of the file's content."),
		}},
	}
}
