package service

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/cmdbfilter"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

// The values of order and agent_abnormal.
var (
	orderBys      = []string{"priority", "none"}
	isolateBys    = []string{"service", "set", "module", "host"}
	agentAbnormal = []string{"fail", "skip"}
	onChanges     = []string{"reload", "restart", "none"}
	promotes      = []string{promoteAuto, promoteManual}
)

// The values of rollout.canary.promote.
const (
	promoteAuto   = "auto"
	promoteManual = "manual"
)

// The values of an instance's status.
const (
	statusRunning     = "running"
	statusStopped     = "stopped"
	statusAbsent      = "absent"
	statusUnreachable = "unreachable"
	statusFailed      = "failed"
	statusPending     = "pending"
)

func serviceSchema(ctx context.Context) schema.Schema {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The namespaces of the service's processes, comma-separated, as import takes them: " +
			"`terraform import gse_service.NAME GSEKIT_BIZ_2` adopts every process GSE has in the namespace, and the first apply sends the spec alone to those running as asked.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"bk_biz_id": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)},
			MarkdownDescription: "The CMDB business of the hosts, the JOB scope of the health gate's `tcp` and `script` (needed by them alone)."},
		"processes": packedAttribute[processesSchema](processesAttr),
		"instances": packedAttribute[instancesSchema](instancesAttr),
		"running": schema.BoolAttribute{Optional: true,
			MarkdownDescription: "`true` (the default) starts every instance and keeps it running: a refresh that finds one stopped or absent plans its start, and only its. " +
				"`false` stops them, in descending priority, and keeps them registered."},
		"order": schema.SingleNestedAttribute{Optional: true,
			MarkdownDescription: "How the instances are put in tiers, one tier after another. Unset: `by = \"priority\"`, `isolate_by = \"service\"`.",
			Attributes: map[string]schema.Attribute{
				"by": schema.StringAttribute{Optional: true, Validators: []validator.String{stringvalidator.OneOf(orderBys...)},
					MarkdownDescription: "`priority` (the default): one tier per CMDB priority, as GSEKit runs them: starts, reloads and spec updates in ascending priority, " +
						"stops, restarts and removals in descending priority, and those before the others. `none`: one tier per direction, every priority together."},
				"isolate_by": schema.StringAttribute{Optional: true, Validators: []validator.String{stringvalidator.OneOf(isolateBys...)},
					MarkdownDescription: "What a failure stops, as GSEKit's task granularity: `service` (the default) stops every later tier; `set`, `module` or `host` stops the later tiers " +
						"of the failed instance's set, module or host only, and the others go on. `set` and `module` need each instance's `bk_set_id` or `bk_module_id`, which `gse_cmdb_processes.groups` (read `with_instances = true`) gives with each host of `processes`."},
			}},
		"rollout": schema.SingleNestedAttribute{Optional: true,
			MarkdownDescription: "The batches within each tier. Unset: each tier in one batch, and the first failure stops the release after its batch.",
			Attributes: map[string]schema.Attribute{
				"batch_size": schema.StringAttribute{Optional: true, Validators: []validator.String{rollout.BatchSizeFormat()},
					MarkdownDescription: "Hosts per batch within a tier: a count such as `5`, or a percentage of the tier's hosts such as `\"25%\"`, rounded up. Every instance of the tier on a host is in that host's batch. Unset: the whole tier."},
				"max_fail_percentage": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{plumbing.ZeroTo(100)},
					MarkdownDescription: "Share of the instances the release acts on, `0` to `100`, that may fail before no further batch starts. Defaults to `0`."},
				"pause": schema.StringAttribute{Optional: true, Validators: []validator.String{rollout.NonNegativeDuration()},
					MarkdownDescription: "Pause between batches, such as `\"30s\"`. Defaults to none."},
				"canary": canaryAttribute(),
				"auto_revert": schema.BoolAttribute{Optional: true,
					MarkdownDescription: "`true`: when failures stop the release (more than `max_fail_percentage`, or a canary instance), the instances this apply released get their previous config files " +
						"and the state's spec back, and the reload or restart their release ran; the apply fails, and each reverted instance says so in `instances[*].message` " +
						"(failed ones stay `failed`, the others are `pending` again), nothing tainted. The files come from a backup each host takes right before its push " +
						"(`{file}.gse-prev`, or `{file}.gse-none` for a file that did not exist; a shell script through JOB's `fast_execute_script`, as the file's `account`), so no content goes in the state; " +
						"the backups stay on the hosts. Reloads, restarts and spec updates are reverted; starts, stops and removals are not. Defaults to `false`."},
				"paused": schema.BoolAttribute{Optional: true,
					MarkdownDescription: "`true` holds the release: the plan schedules none of its instances and shows them `pending` (`message` says why), so an apply sends nothing for it; " +
						"an apply already running is not affected (Terraform reads the configuration at plan), and it stops only at a batch boundary anyway. " +
						"Repairs of drift still run. `false` or unset: the release goes on where it stands."},
				"progress_deadline": schema.StringAttribute{Optional: true, Validators: []validator.String{rollout.NonNegativeDuration()},
					MarkdownDescription: "How long the whole release may run, such as `\"30m\"`: past it no further batch starts, the rest stays `pending` and the apply fails; the next apply goes on from there. " +
						"It is checked at batch boundaries, so the batch running when it passes finishes. Defaults to none (the `timeouts` still apply)."},
			}},
		"health": healthAttribute(),
		"restart_triggers": schema.MapAttribute{ElementType: types.StringType, Optional: true,
			MarkdownDescription: "Arbitrary values; a change restarts every instance (op_type 7), tier by tier in descending priority, batch by batch."},
		"reload_triggers": schema.MapAttribute{ElementType: types.StringType, Optional: true,
			MarkdownDescription: "Arbitrary values; a change reloads every instance not restarted by the same apply (op_type 8), in ascending priority."},
		"config_files": packedAttribute[configFilesSchema](configFilesAttr),
		"hold": schema.SetAttribute{ElementType: types.StringType, Optional: true,
			MarkdownDescription: "Instance keys, or prefixes of them (such as `GSEKIT_BIZ_2/nginx_1@` or `GSEKIT_BIZ_2/`), that this apply leaves untouched: no spec, no operation, no repair. " +
				"A held instance keeps its state; a destroy removes it with the rest."},
		"agent_abnormal": schema.StringAttribute{Optional: true, Validators: []validator.String{stringvalidator.OneOf(agentAbnormal...)},
			MarkdownDescription: "What a batch does with instances whose host's agent is not running: `fail` (the default) fails them, counting against `max_fail_percentage`; " +
				"`skip` leaves them `pending` without failing the release, for the next apply."},
		"revision": schema.StringAttribute{Computed: true,
			MarkdownDescription: "A digest of what the configuration asks of the service (processes, running, triggers, config files): it changes with every release, and not with a repair."},
		"promote_revision": schema.StringAttribute{Optional: true,
			MarkdownDescription: "With `rollout.canary.promote = \"manual\"`: the `revision` whose release may go on past its canary. Set it to the `revision` the plan shows once its canary passed; " +
				"the next apply releases the rest. A release of another revision stops after its own canary again."},
		"canary_revision": schema.StringAttribute{Computed: true,
			MarkdownDescription: "The `revision` whose canary passed (a create, which is not canaried, counts as passed): its release goes on without another canary. " +
				"Unknown in a plan that runs a canary."},
		"schedule": scheduleAttribute(),
		"failed_count": schema.Int64Attribute{Computed: true,
			MarkdownDescription: "Instances whose last action failed. A create whose instances partly failed is kept, not tainted (a replacement would restart every instance): " +
				"fail CI on it with a `postcondition` on `self.failed_count == 0`."},
		"pending_count": schema.Int64Attribute{Computed: true,
			MarkdownDescription: "Instances whose action did not run: a stopped release's later batches, held back by a failed tier, or on a host whose agent was down with `agent_abnormal = \"skip\"`. The next apply runs them."},
		"timeouts": plumbing.ResourceTimeouts(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
	}
	plumbing.WithTypesBuilt(attrs)
	return schema.Schema{
		MarkdownDescription: "A whole service as one resource: its GSE processes (as `gse_cmdb_processes` groups them) released tier by tier in CMDB priority order, each tier in batches of hosts behind a health gate, " +
			"with the schedule shown in the plan and every instance's outcome in the state.",
		Attributes: attrs,
	}
}

// configFilesAttribute is config_files: files per instance or per group,
// pushed in the batch of their instances.
func configFilesAttribute() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{Optional: true,
		MarkdownDescription: "Config files, keyed by a name of yours, each written to the hosts of its instances by JOB's `push_config_file` in their batch, right before their operation: " +
			"one job per distinct content and batch, and the files only one host gets (such as each instance's own) in one job per host and directory, never to a host outside the batch. A file of one `instance` (a `for` over `instances` with `templatefile` gives each instance its own, " +
			"such as `nginx_1.conf` and `nginx_2.conf` on a host with two) or of every instance of a `group`. A changed `content` shows as a diff in the plan and acts on its instances " +
			"as `on_change` says. Two files writing one path on one host fail the plan. Needs `bk_biz_id`. A file removed from `config_files`, and every file at destroy, stays on its hosts.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"instance": schema.StringAttribute{Optional: true, MarkdownDescription: "The key of the one instance the file is for (its host, its process). Set `instance` or `group`."},
			"group":    schema.StringAttribute{Optional: true, MarkdownDescription: "The key in `processes` of the group whose every host gets the file."},
			"path": schema.StringAttribute{Required: true, Validators: []validator.String{plumbing.AbsolutePath()},
				MarkdownDescription: "The directory the file goes to (`file_target_path`), absolute."},
			"file_name": schema.StringAttribute{Required: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1), stringvalidator.NoneOf(".", "..")},
				MarkdownDescription: "The file's name in `path`."},
			"account": schema.StringAttribute{Optional: true, MarkdownDescription: "The JOB execution account (alias) that writes it. Defaults to `root`."},
			"content": schema.StringAttribute{Optional: true,
				MarkdownDescription: "The file's text, shown in the plan. Set `content` or `content_wo`."},
			// Write-only, not Sensitive (as gse_config_file's): plans and states
			// hold it null, and Terraform marks each element's sensitive path
			// by comparing it with every other (lang/marks.MarkPaths), which
			// made a plan of 400 per-instance files take seconds.
			"content_wo": schema.StringAttribute{Optional: true, WriteOnly: true,
				MarkdownDescription: "The file's text, never stored nor shown (Terraform 1.11+): only its SHA-256 is, in `instances[*].config`. It is pushed when `content_wo_version` changes (set with it)."},
			"content_wo_version": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Any value; a change pushes `content_wo` again."},
			"on_change": schema.StringAttribute{Optional: true, Validators: []validator.String{stringvalidator.OneOf(onChanges...)},
				MarkdownDescription: "What a changed file does to its instances, in the same batch right after the push: `reload` (the default; op_type 8), `restart` (op_type 7) or `none`."},
			"verify": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Whether each refresh reads the file back on the hosts of its instances: its SHA-256 (or MISSING), by a script JOB runs as `account` " +
					"(`fast_execute_script`: `sha256sum`, or PowerShell for a Windows path), one task per distinct path and refresh. " +
					"An instance whose host holds another file, or none, records what was found in `instances[*].config`, and the next plan pushes the file to that instance alone " +
					"and does its `on_change`, with a warning naming it. A host JOB cannot reach is left as it was; a read that fails fails the refresh, naming the host. Unset or `false`: files are not read back."},
		}, Validators: []validator.Object{fileShape{}}}}
}

// canaryAttribute is rollout.canary.
func canaryAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Optional: true,
		MarkdownDescription: "A release that proves itself on a few hosts first (Nomad's `canary`, Argo Rollouts' first step): of each group, `size` of the hosts it acts on in its first tier " +
			"(in the order batches take hosts) get the release first, in its tiers, one batch per tier, behind the health gate; then they must stay healthy for `bake`; then, as `promote` says, " +
			"the rest follows in its tiers and batches. The plan's `schedule` shows the canary's tiers first (`canary = true`) with their instance keys. Every canary instance must pass: " +
			"one that fails stops the release, the rest `pending`. Updates only: a create, an import's first apply, a repair of drift alone are not canaried.",
		Attributes: map[string]schema.Attribute{
			"size": schema.StringAttribute{Required: true, Validators: []validator.String{rollout.BatchSizeFormat()},
				MarkdownDescription: "Hosts of each group in the canary: a count such as `1`, or a percentage of the group's hosts in its first tier such as `\"10%\"`, rounded up."},
			"select": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "Where the canary's hosts come from, instead of the first hosts (BlueKing teams keep gray sets): only hosts that every part given holds. " +
					"The filters are CMDB's property filters, as `gse_cmdb_hosts.filter` takes them, over the hosts' sets, modules and the hosts themselves: " +
					"a gray environment's sets are `set_property_filter = { condition = \"AND\", rules = [{ field = \"bk_set_env\", operator = \"equal\", value = \"2\" }] }`. " +
					"CMDB evaluates them: a plan that picks a canary reads the hosts they select with `list_biz_hosts_topo` (one call per 500 hosts; needs `bk_biz_id`), " +
					"and an instance is the canary's when its `bk_host_id` is among them (a host in several sets is selected when one of its sets and modules matches). " +
					"The ids are tested on each instance as `processes` gives them. " +
					"A group none of whose hosts match has no canary (its instances follow the others' canary); a `select` that matches none of the release's hosts fails the plan, " +
					"and so does a filter field CMDB's sets, modules or hosts do not have. " +
					"Filters, sets and modules need each instance's `bk_host_id`, `bk_set_id` and `bk_module_id`, which `gse_cmdb_processes.groups` read `with_instances = true` gives.",
				Attributes: map[string]schema.Attribute{
					"bk_set_ids":             schema.SetAttribute{Optional: true, ElementType: types.Int64Type, MarkdownDescription: "CMDB sets (`bk_set_id`) the canary's instances are in."},
					"bk_module_ids":          schema.SetAttribute{Optional: true, ElementType: types.Int64Type, MarkdownDescription: "CMDB modules (`bk_module_id`) the canary's instances are in."},
					"bk_host_ids":            schema.SetAttribute{Optional: true, ElementType: types.Int64Type, MarkdownDescription: "CMDB hosts (`bk_host_id`) the canary may take."},
					"set_property_filter":    cmdbfilter.ResourceAttribute(selectSets),
					"module_property_filter": cmdbfilter.ResourceAttribute(selectModules),
					"host_property_filter":   cmdbfilter.ResourceAttribute(selectHosts),
				}},
			"bake": schema.StringAttribute{Optional: true, Validators: []validator.String{rollout.NonNegativeDuration()},
				MarkdownDescription: "How long the canary must stay healthy after its gate, such as `\"10m\"`: each canary instance must run with the pid it passed the gate with for that long more, " +
					"by GSE's clock (the `report_time` of its status), then pass `health`'s `tcp` and `script` again. The apply reads it when the bake should be over (and a few times before). Defaults to none."},
			"promote": schema.StringAttribute{Optional: true, Validators: []validator.String{stringvalidator.OneOf(promotes...)},
				MarkdownDescription: "`auto` (the default): the rest follows in the same apply once the canary baked. `manual`: the apply stops after the canary, the rest `pending`; " +
					"setting `promote_revision` to the planned `revision` lets the next apply release the rest."},
		}}
}

// healthAttribute is health: the gate after each batch.
func healthAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Optional: true,
		MarkdownDescription: "The gate each batch passes before the next starts, after a start, restart or reload: every instance of the batch running (`status` 1 with a pid) " +
			"with the same pid for `running_for`, within `healthy_deadline`. An instance that does not is failed, named with what GSE reported, and counts against `max_fail_percentage`. " +
			"Unset: running, with the defaults below.",
		Attributes: map[string]schema.Attribute{
			"running_for": schema.StringAttribute{Optional: true, Validators: []validator.String{rollout.NonNegativeDuration()},
				MarkdownDescription: "How long each instance must keep one pid, such as `\"10s\"` (Nomad's `min_healthy_time`), from the first read that finds it, by GSE's clock (the `report_time` of its status): a process that dies and is restarted by the agent fails it. Defaults to `\"0s\"`: running once."},
			"healthy_deadline": schema.StringAttribute{Optional: true, Validators: []validator.String{plumbing.Duration()},
				MarkdownDescription: "How long a batch may take to become healthy, such as `\"5m\"` (Nomad's `healthy_deadline`). Defaults to `\"5m\"`. It counts against the apply's timeout."},
			"tcp": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "After the pid holds, each instance's TCP ports must listen on its host: read from `/proc/net/tcp` and `tcp6` by a shell probe JOB runs " +
					"(`fast_execute_script`, one task per batch and distinct set of ports; Linux hosts, or Windows with Cygwin). Needs `bk_biz_id`.",
				Attributes: map[string]schema.Attribute{
					"ports": schema.StringAttribute{Required: true, Validators: []validator.String{stringvalidator.OneOf("bind_info")},
						MarkdownDescription: "Where the ports come from: `bind_info`, each instance's enabled TCP and TCP6 rows of CMDB's `bind_info` (ports, ranges and lists), " +
							"which needs `instances` from `gse_cmdb_processes`. An instance with none is not probed."},
				}},
			"script": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "After the pid holds (and the ports listen), your shell script must exit 0 on each host of the batch: one JOB `fast_execute_script` task per batch, " +
					"each host once; its exit code counts for every instance on the host, and a failure names the host, the code and the last lines of its output. Needs `bk_biz_id`.",
				Attributes: map[string]schema.Attribute{
					"content": schema.StringAttribute{Required: true, MarkdownDescription: "The script, such as `curl -fsS http://127.0.0.1:8080/healthz`."},
					"account": schema.StringAttribute{Optional: true, MarkdownDescription: "The JOB execution account (alias) it runs as. Defaults to `root`."},
					"timeout": schema.StringAttribute{Optional: true, Validators: []validator.String{plumbing.Duration()},
						MarkdownDescription: "How long one run may take, such as `\"30s\"`. Defaults to `\"1m\"`."},
				}},
		}}
}

// processesAttribute is processes: the groups of gse_cmdb_processes.
func processesAttribute() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{Required: true, Validators: []validator.Map{mapvalidator.SizeAtLeast(1)},
		MarkdownDescription: "The service's processes, keyed as `gse_cmdb_processes.groups` keys them (`{namespace}/{name}`): pass `groups` as it is, or write them by hand. " +
			"Each is one GSE process (`meta`) with one `spec` on its `hosts`, and its CMDB `priority`. A group added is registered and started on its hosts; one removed is stopped and unregistered; " +
			"a changed spec is sent (`update_proc_info`) to every host of the group, batch by batch, without a restart (use `restart_triggers`).",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"meta": schema.SingleNestedAttribute{Required: true, MarkdownDescription: "The process's identity in GSE, as in `gse_managed_process`.",
				Attributes: map[string]schema.Attribute{
					"namespace": schema.StringAttribute{Required: true, MarkdownDescription: "GSE namespace. No `:`, `/`, `@`, `,` or spaces.", Validators: []validator.String{plumbing.MetaName()}},
					"name":      schema.StringAttribute{Required: true, MarkdownDescription: "GSE process name. No `:`, `/`, `@`, `,` or spaces.", Validators: []validator.String{plumbing.MetaName()}},
					"labels": schema.MapAttribute{ElementType: types.StringType, Optional: true,
						MarkdownDescription: "Labels sent with the process, replacing those GSE holds. Unset, each host keeps the labels GSE holds there (GSEKit's `bk_process_name` and `bk_process_id`), " +
							"read (`get_proc_status_v2`) and sent back each time the spec is sent, whether GSE keeps the labels an update leaves out or drops them; `{}` removes them."},
				}},
			"spec":  groupSpec(),
			"hosts": groupHostsAttribute(),
			"priority": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "CMDB's start priority of the process (`priority`): with `order.by = \"priority\"`, lower starts first and stops last. Unset is `0`, as GSEKit orders a process without one."},
		}},
	}
}

// instanceInputs are the attributes of an instance as gse_cmdb_processes.instances
// gives it, each planned from processes when instances is unset.
func instanceInputs() map[string]schema.Attribute {
	num := func(desc string) schema.Attribute {
		return schema.Int64Attribute{Optional: true, Computed: true, MarkdownDescription: desc}
	}
	return map[string]schema.Attribute{
		"group": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "The key of the instance's process in `processes`."},
		"name":  schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "The GSE process name."},
		"host": schema.SingleNestedAttribute{Optional: true, Computed: true, MarkdownDescription: "The instance's host.",
			Attributes: map[string]schema.Attribute{
				"ip": schema.StringAttribute{Optional: true, MarkdownDescription: "IP address."}, "bk_cloud_id": schema.Int64Attribute{Optional: true, MarkdownDescription: "Cloud area id."},
				"bk_supplier_id": schema.Int64Attribute{Optional: true, MarkdownDescription: "Supplier id."}, "agent_id": schema.StringAttribute{Optional: true, MarkdownDescription: "GSE 2.0 agent id."},
			}},
		"bk_host_id": num("CMDB host id."), "bk_process_id": num("CMDB process id."), "bk_set_id": num("CMDB set id (for `isolate_by = \"set\"`)."),
		"bk_module_id": num("CMDB module id (for `isolate_by = \"module\"`)."), "service_instance_id": num("CMDB service instance id."),
		"local_inst_id": num("The instance's number on its host, 1 to `proc_num`."), "priority": num("CMDB priority; unset: its group's."),
		"bind_info": bindInfoAttribute(),
	}
}

// groupHostsAttribute is a group's hosts: as gse_managed_process.hosts takes
// them, each with the CMDB facts gse_cmdb_processes.groups gives of the
// group's instance there, so that a service orders and checks by them
// without instances.
func groupHostsAttribute() schema.ListNestedAttribute {
	a := hosts.ListNestedAttribute("The hosts the process runs on, by `ip` and `bk_cloud_id` or by `agent_id`, as `gse_managed_process.hosts` takes them, " +
		"each with what `gse_cmdb_processes.groups` (read `with_instances = true`) says of the process instance on it: its CMDB host, set and module ids and `bind_info`. " +
		"Those become the instance's in `instances` (where `instances`, given, holds them too, its values win).")
	num := func(desc string) schema.Attribute {
		return schema.Int64Attribute{Optional: true, MarkdownDescription: desc}
	}
	a.NestedObject.Attributes["bk_host_id"] = num("CMDB host id: JOB (config files, health probes) addresses the host by it.")
	a.NestedObject.Attributes["bk_set_id"] = num("CMDB set id of the instance (for `isolate_by = \"set\"`).")
	a.NestedObject.Attributes["bk_module_id"] = num("CMDB module id of the instance (for `isolate_by = \"module\"`).")
	bi := bindInfoAttribute()
	bi.Computed = false
	a.NestedObject.Attributes["bind_info"] = bi
	return a
}

// bindInfoAttribute is an instance's bind_info, as gse_cmdb_processes gives it.
func bindInfoAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Optional: true, Computed: true, MarkdownDescription: "CMDB's listening addresses of the process (for `tcp = { ports = \"bind_info\" }`).",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"enable": schema.BoolAttribute{Optional: true, MarkdownDescription: "Whether the row is enabled."}, "ip": schema.StringAttribute{Optional: true, MarkdownDescription: "Listening IP."},
			"port": schema.StringAttribute{Optional: true, MarkdownDescription: "Port or range."}, "protocol": schema.StringAttribute{Optional: true, MarkdownDescription: "Protocol."},
			"template_row_id": schema.Int64Attribute{Optional: true, MarkdownDescription: "Row of the process template."},
		}}}
}

func instancesAttribute() schema.MapNestedAttribute {
	attrs := instanceInputs()
	for name, desc := range map[string]string{
		"tier":  "The tier of the instance's action in `schedule` (1-based), known at plan.",
		"batch": "The batch within its tier (1-based), known at plan.",
	} {
		attrs[name] = schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	attrs["action"] = schema.StringAttribute{Computed: true,
		MarkdownDescription: "What the release does to the instance, known at plan: `start`, `restart`, `reload`, `update` (the spec alone), `stop`, `remove`; null once a refresh finds it done."}
	attrs["status"] = schema.StringAttribute{Computed: true,
		MarkdownDescription: "`running`, `stopped`, `absent` (not registered), `unreachable` (its agent is down), `failed` (its action failed: see `code` and `message`) or `pending` (its action did not run yet). " +
			"An apply resumes at the failed and pending instances."}
	attrs["code"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "GSE's error code of a failed action; 0 otherwise."}
	attrs["message"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Why the action failed or is pending, as GSE or the health gate said."}
	attrs["pid"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "The pid GSE reports, 0 when not running."}
	attrs["config"] = schema.MapAttribute{Computed: true, ElementType: types.StringType,
		MarkdownDescription: "The SHA-256 of each file of `config_files` (by its key) last pushed to the instance's host for it, or, for a file with `verify`, what the last refresh found there: " +
			"its SHA-256, or `missing`; a value other than the file's own SHA-256 plans its push. Unknown at plan where a file changes."}
	return schema.MapNestedAttribute{Optional: true, Computed: true,
		MarkdownDescription: "One element per process instance and host, keyed `{namespace}/{name}@{host}`, planned from `processes` (one per group and host, with the CMDB ids and `bind_info` " +
			"its host carries: `gse_cmdb_processes.groups` gives them, read `with_instances = true`). You may pass `gse_cmdb_processes.instances` (with `with_instances = true`) or a map of your own instead, whose values win; " +
			"its keys must be exactly the instances of `processes`. Unset, each element's `bk_host_id`, `bk_set_id`, `bk_module_id` and `bind_info` stay null (the hosts of `processes` hold them). Leave it unset for a large service: Terraform converts a map of objects passed as an argument in time that grows with the " +
			"square of its elements (at 20,000 instances, most of a minute of every plan). " +
			"Each element also holds what the provider planned (`tier`, `batch`, `action`) and found (`status`, `code`, `message`, `pid`).",
		NestedObject: schema.NestedAttributeObject{Attributes: attrs}}
}

func scheduleAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Computed: true,
		MarkdownDescription: "The release the plan will run, known at plan: its tiers in order, each with its direction, its CMDB priority and its batches of instance keys. " +
			"A refresh keeps only what is left to run.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"tier":      schema.Int64Attribute{Computed: true, MarkdownDescription: "The tier's number, 1-based."},
			"direction": schema.StringAttribute{Computed: true, MarkdownDescription: "`descending` (stops, restarts, removals) or `ascending` (the rest)."},
			"priority":  schema.Int64Attribute{Computed: true, MarkdownDescription: "The tier's CMDB priority; null with `order.by = \"none\"`."},
			"batches": schema.ListAttribute{Computed: true, ElementType: types.ListType{ElemType: types.StringType},
				MarkdownDescription: "The tier's batches, each the keys of its instances."},
			"canary": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the tier is the canary's (`rollout.canary`): the canary's tiers come first, one batch each."},
		}}}
}

// The element types of instances, bind_info and schedule, built once.
var (
	instanceType = instancesAttribute().NestedObject.Type()
	bindInfoType = bindInfoAttribute().NestedObject.Type()
	tierType     = scheduleAttribute().NestedObject.Type()
)

// groupSpec is a group's spec: gse_managed_process's, described for it.
func groupSpec() schema.SingleNestedAttribute {
	a := spec.TypedAttribute
	a.MarkdownDescription = "The process's definition, as `gse_managed_process.spec` takes it; GSE cannot read it back. A change is sent batch by batch without a restart."
	return a
}
