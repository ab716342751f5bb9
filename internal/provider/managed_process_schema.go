package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Documented defaults of the monitor policy (register_proc_info and operate_proc_v2).
const (
	defaultStartCheckSecs = 5
	defaultStartRetries   = 4
	defaultStartInterval  = 10
	defaultOpTimeout      = 60
)

// autoTypes are GSE's hosting types, in the order of their numbers.
var autoTypes = []string{"periodic", "resident", "one-shot"}

func autoTypeDescription() string {
	parts := make([]string, len(autoTypes))
	for i, t := range autoTypes {
		parts[i] = fmt.Sprintf("`%d` %s", i, t)
	}
	return strings.Join(parts, ", ")
}

func optionalString(desc string, v ...validator.String) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, MarkdownDescription: desc, Validators: v}
}

func requiredString(desc string, v ...validator.String) schema.StringAttribute {
	return schema.StringAttribute{Required: true, MarkdownDescription: desc, Validators: v}
}

// nonNegative is an optional count. A documented API default (def >= 0) is
// applied when the spec is sent (specModel.expand), not with a schema Default:
// defaults run on every plan of every resource, and the state keeps what the
// configuration says.
func nonNegative(desc string, def int64) schema.Int64Attribute {
	a := schema.Int64Attribute{Optional: true, MarkdownDescription: desc, Validators: []validator.Int64{int64validator.AtLeast(0)}}
	if def >= 0 {
		a.MarkdownDescription += fmt.Sprintf(" When unset, `%d` is sent.", def)
	}
	return a
}

func nonEmpty() validator.String { return stringvalidator.LengthAtLeast(1) }

// managedProcessSchema is the schema of gse_managed_process.
func managedProcessSchema(ctx context.Context) schema.Schema {
	s := schema.Schema{
		MarkdownDescription: "A process that the GSE agent registers, and by default hosts (托管), on a set of hosts. " +
			"Create registers the spec (`register_proc_info`), then starts it when `running = true` (`operate_proc_v2` op_type 0, which also hosts it) " +
			"or else hosts it (op_type 3): one task, polled to completion. Refresh reads the runtime state (`get_proc_status_v2`), so a process " +
			"unhosted, stopped or unregistered behind Terraform's back shows up as drift and `terraform apply` repairs it.\n\n" +
			"GSE cannot read a registered spec back: refresh sees only runtime state, hosts and labels. After `terraform import` " +
			"the next apply re-sends the spec with `update_proc_info`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`namespace/name` of the process.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"meta": schema.SingleNestedAttribute{
				Required:            true,
				MarkdownDescription: "Identity of the process in GSE. Changing `namespace` or `name` replaces the resource.",
				Attributes: map[string]schema.Attribute{
					"namespace": schema.StringAttribute{
						Required: true, MarkdownDescription: "Namespace grouping processes, such as `gse` or `nodeman`. No `:`, `/`, `@`, `,` or spaces.",
						Validators:    []validator.String{metaName()},
						PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
					},
					"name": schema.StringAttribute{
						Required: true, MarkdownDescription: "Name of the process within the namespace, chosen by you. No `:`, `/`, `@`, `,` or spaces.",
						Validators:    []validator.String{metaName()},
						PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
					},
					"labels": schema.MapAttribute{
						ElementType: types.StringType, Optional: true,
						MarkdownDescription: "Free-form string labels for managing processes by label. Read back on refresh.",
					},
				},
			},
			"hosts": hostsSchema("Hosts the process is registered on, in any order (a reordered list plans no change). " +
				"Adding a host registers and hosts it there; removing one unhosts and unregisters it there."),
			"spec": packedSpec("Process definition, sent with `register_proc_info` / `update_proc_info` and, with `monitor_policy` as `alive_monitor_policy`, with every operation. " +
				"A change is sent with `update_proc_info` and the process is hosted again. GSE cannot read it back."),
			"managed": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Whether the agent hosts (托管) the process: restarts it when it dies and kills it when it exceeds its resource limits " +
					"(op_type 3 to host, 4 to unhost). Defaults to `true`. Refresh sets it to `false` when a host no longer hosts the process.",
			},
			"running": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Desired run state. `true` starts the process (op_type 0), `false` stops it (op_type 1); unset means Terraform does not manage it. " +
					"Refresh sets it to `false` when `true` was wanted and a host's process is stopped. In GSE a start hosts the process and a stop unhosts it, " +
					"so `running = false` needs `managed = false`, and `running = true` needs `managed = true`. " +
					"For a one-shot process (`spec.monitor_policy.auto_type = 2`), which exits by design, `true` means that Terraform has started it " +
					"(at create, on added hosts, or after `false`), not that it still runs: a start or restart that GSE answers with 836 (post-check failed: " +
					"the process ran and has already exited) counts as done, refresh does not read `running` back (a one-shot that ran and exited is not drift; " +
					"`host_status` shows it `stopped`), and no apply starts it again by itself: change `restart_triggers`, or use `gse_process_operation`, to run it again.",
			},
			"restart_triggers": schema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Arbitrary values; when any changes (and the map is set), the process is restarted (op_type 7, `restart_cmd`) on every host, in the batches of `rollout` when set. Use it for config file hashes. " +
					"A restart that did not reach every host leaves the prior value in the state; the next apply restarts only the hosts it missed.",
			},
			"reload_triggers": schema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Arbitrary values; when any changes (and the map is set), the process is reloaded (op_type 8, `reload_cmd`) on every host, in the batches of `rollout` when set. " +
					"A reload that did not reach every host leaves the prior value in the state; the next apply reloads only the hosts it missed.",
			},
			"host_status": schema.StringAttribute{
				Computed: true, CustomType: hostStatusMapType{},
				MarkdownDescription: "Runtime state per host, keyed `bk_cloud_id:ip` (the ip as written in `hosts`), or by the `agent_id` of a host given by one. Each value holds `status` " +
					"(`running`, `stopped` or `unregistered`), `managed` (whether the agent hosts the process, `isauto`), `pid` (`-1` or `0` when not running), " +
					"`version` (from `version_cmd`) and `last_start_time` (Unix time). Refresh reads all of them with `get_proc_status_v2`; " +
					"create and update read them again on the hosts they changed, so `terraform plan -refresh-only` right after an apply reports no change, " +
					"and keep the values of hosts they did not touch. The plan of an update shows as unknown only the facts of hosts it may change: hosts it adds, " +
					"every host when it starts, stops, hosts, unhosts, restarts or reloads the process, and after a spec change the hosts that were not hosted. " +
					"Read-only; pids and start times change outside Terraform without causing a diff. " +
					"For every runtime fact of any host use the `gse_process_status` data source.",
			},
			"rollout": rolloutAttribute("It governs every step that disrupts the process: removing hosts (stop or unhost, unregister), " +
				"a spec change (`update_proc_info`, then hosting with op_type 3), hosting added hosts, `running` flips, `restart_triggers` and `reload_triggers`, and on create " +
				"the registering and starting or hosting of each batch. A change of `rollout` alone changes nothing remotely. " +
				"What a stopped rollout leaves in the state: hosts removed so far leave it, hosts added stay in it once registered; a trigger that " +
				"did not reach every host keeps its prior value in the state, so the next plan shows it again, and the next apply runs it only on " +
				"the hosts it has not reached yet (failed and untouched ones), as long as the trigger keeps the same value. Other steps are idempotent " +
				"and simply run again; refresh shows their runtime drift. A create that stops keeps the registered batches in the state, tainted."),
			"timeouts": timeoutsSchema(ctx),
		},
	}
	withTypesBuilt(s.Attributes)
	return s
}

func specSchema(desc string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Required:            true,
		MarkdownDescription: desc,
		Attributes: map[string]schema.Attribute{
			"identity": schema.SingleNestedAttribute{
				Required: true, MarkdownDescription: "What the process is and where it lives.",
				Attributes: map[string]schema.Attribute{
					"index_key":   optionalString("Agent index key; leave unset to let GSE use `setup_path` + `proc_name`. Set it when two processes share both."),
					"proc_name":   requiredString("Binary file name of the process, such as `nginx`; not empty.", nonEmpty()),
					"setup_path":  requiredString("Working directory (absolute path).", absolutePath()),
					"pid_path":    requiredString("PID file (absolute path); the agent reads it to find the process.", absolutePath()),
					"config_path": optionalString("Configuration file (absolute path).", absolutePath()),
					"log_path":    optionalString("Log directory (absolute path).", absolutePath()),
					"user":        requiredString("System account the process runs as, such as `root` or `Administrator`; not empty.", nonEmpty()),
				},
			},
			"control": schema.SingleNestedAttribute{
				Required: true, MarkdownDescription: "Commands the agent runs in `setup_path`. A command left unset makes its operation fail on the host.",
				Attributes: map[string]schema.Attribute{
					"start_cmd":   optionalString("Start command (op_type 0), such as `./start.sh`. Required with `running = true`."),
					"stop_cmd":    optionalString("Stop command (op_type 1)."),
					"restart_cmd": optionalString("Restart command (op_type 7), run when `restart_triggers` change; required with `restart_triggers`."),
					"reload_cmd":  optionalString("Reload command (op_type 8), run when `reload_triggers` change; required with `reload_triggers`."),
					"kill_cmd":    optionalString("Kill command (op_type 9)."),
					"version_cmd": optionalString("Command printing the process version."),
					"health_cmd":  optionalString("Health check command."),
				},
			},
			"resource": schema.SingleNestedAttribute{
				Required: true, MarkdownDescription: "Limits beyond which the agent kills a hosted process.",
				Attributes: map[string]schema.Attribute{
					"cpu": schema.Float64Attribute{
						Required: true, MarkdownDescription: "CPU usage limit in percent of the whole machine (not of one core), 0 to 100; `30.0` means 30%.",
						Validators: []validator.Float64{zeroTo(100)},
					},
					"mem": schema.Float64Attribute{
						Required: true, MarkdownDescription: "Memory usage limit in percent, 0 to 100.",
						Validators: []validator.Float64{zeroTo(100)},
					},
					"fd":   nonNegative("File descriptor limit (reserved by GSE).", -1),
					"disk": nonNegative("Disk usage limit (reserved by GSE).", -1),
					"net":  nonNegative("Network traffic limit (reserved by GSE).", -1),
				},
			},
			"monitor_policy": schema.SingleNestedAttribute{
				Required: true, MarkdownDescription: "How the agent watches the process (`alive_monitor_policy` in the v2 operation API).",
				Attributes: map[string]schema.Attribute{
					"auto_type": schema.Int64Attribute{
						Required:            true,
						MarkdownDescription: "Hosting type: " + autoTypeDescription() + ".",
						Validators:          []validator.Int64{namedInts(autoTypes)},
					},
					"start_check_secs": nonNegative("Seconds after the start command before the agent checks the process is alive.", defaultStartCheckSecs),
					"stop_check_secs":  nonNegative("Seconds after the stop command before the agent checks the process is gone.", -1),
					"start_retries":    nonNegative("How many times the agent tries to pull the process up again.", defaultStartRetries),
					"start_interval":   nonNegative("Seconds between the agent's attempts to pull the process up.", defaultStartInterval),
					"crontab_rule":     optionalString("Schedule of a periodic process (`auto_type = 0`), in crontab syntax; ignored otherwise (reserved by GSE). A periodic process without it plans with a warning."),
					"op_timeout":       nonNegative("Timeout of each command, in seconds.", defaultOpTimeout),
				},
			},
			"warn_report_policy": schema.SingleNestedAttribute{
				Optional: true, MarkdownDescription: "Alarm raised for the process.",
				Attributes: map[string]schema.Attribute{
					"report_id": nonNegative("Alarm id.", -1),
				},
			},
			"configmap": schema.ListNestedAttribute{
				Optional: true, MarkdownDescription: "Configuration files of the process (reserved by GSE).",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"path": optionalString("Configuration file (absolute path).", absolutePath()),
					"md5":  optionalString("MD5 of the file's content."),
				}},
			},
		},
	}
}

func timeoutsSchema(ctx context.Context) schema.Attribute {
	d := "How long %s may take, as a positive duration such as `30s` or `15m`. Defaults to `10m`; tasks still pending then fail the apply, naming each host."
	t := resourceTimeouts(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true,
		CreateDescription: fmt.Sprintf(d, "create (register, host or start, poll)"),
		ReadDescription: "How long a refresh (`list_agent_state` through the gateway, `get_proc_status_v2`) may take, as a positive duration such as `30s` or `2m`. " +
			"Defaults to `10m`; a refresh still retrying then (an installation throttling the calls) fails naming the API, and the state stays as it was.",
		UpdateDescription: fmt.Sprintf(d, "an update"),
		DeleteDescription: fmt.Sprintf(d, "destroy (stop or unhost, unregister)"),
	})
	t.MarkdownDescription = "Deadlines of create, refresh, update and delete, each including every API call, retry and task poll."
	return t
}
