package managedprocess

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

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
			"meta": metaAttribute(),
			"hosts": hosts.PackedAttribute("Hosts the process is registered on, in any order (a reordered list plans no change). " +
				"Adding a host registers and hosts it there; removing one unhosts and unregisters it there."),
			"spec": spec.PackedAttribute("Process definition, sent with `register_proc_info` / `update_proc_info` and, with `monitor_policy` as `alive_monitor_policy`, with every operation. " +
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
			"host_status": hostStatusAttribute(),
			"rollout": rollout.Attribute("It governs every step that disrupts the process: removing hosts (stop or unhost, unregister), " +
				"a spec change (`update_proc_info`, then hosting with op_type 3), hosting added hosts, `running` flips, `restart_triggers` and `reload_triggers`, and on create " +
				"the registering and starting or hosting of each batch. A change of `rollout` alone changes nothing remotely. " +
				"What a stopped rollout leaves in the state: hosts removed so far leave it, hosts added stay in it once registered; a trigger that " +
				"did not reach every host keeps its prior value in the state, so the next plan shows it again, and the next apply runs it only on " +
				"the hosts it has not reached yet (failed and untouched ones), as long as the trigger keeps the same value. Other steps are idempotent " +
				"and simply run again; refresh shows their runtime drift. A create that stops keeps the registered batches in the state, tainted."),
			"timeouts": timeoutsSchema(ctx),
		},
	}
	plumbing.WithTypesBuilt(s.Attributes)
	return s
}

// metaAttribute is gse_managed_process.meta: the process's identity in GSE.
func metaAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Required:            true,
		MarkdownDescription: "Identity of the process in GSE. Changing `namespace` or `name` replaces the resource.",
		Attributes: map[string]schema.Attribute{
			"namespace": schema.StringAttribute{
				Required: true, MarkdownDescription: "Namespace grouping processes, such as `gse` or `nodeman`. No `:`, `/`, `@`, `,` or spaces.",
				Validators:    []validator.String{plumbing.MetaName()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"name": schema.StringAttribute{
				Required: true, MarkdownDescription: "Name of the process within the namespace, chosen by you. No `:`, `/`, `@`, `,` or spaces.",
				Validators:    []validator.String{plumbing.MetaName()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"labels": schema.MapAttribute{
				ElementType: types.StringType, Optional: true, Computed: true,
				MarkdownDescription: "Free-form string labels for managing processes by label, read back on refresh. Unset, they are not managed: " +
					"the process keeps the labels GSE reports (GSEKit registers `bk_process_name` and `bk_process_id`), and every update sends them " +
					"back, so an adopted process keeps them whether or not GSE drops the labels an update leaves out. Set, they replace the process's " +
					"labels; `labels = {}` removes them.",
				PlanModifiers: []planmodifier.Map{unmanagedLabels{}},
			},
		},
	}
}

// hostStatusAttribute is gse_managed_process.host_status: what GSE reports
// of the process per host, as the state keeps it.
func hostStatusAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Computed: true, CustomType: status.HostStatusType{},
		MarkdownDescription: "What GSE reports of the process per host, keyed `bk_cloud_id:ip` (the ip as written in `hosts`), or by the `agent_id` of a host given by one. Each value holds `status` " +
			"(`running`, `stopped` or `unregistered`) and `managed` (whether the agent hosts the process, `isauto`): what `running` and `managed` converge and drift is judged on. " +
			"Refresh reads them with `get_proc_status_v2`. Create and update record what their tasks proved (a start: running and hosted; a stop: stopped and unhosted) " +
			"and read the status only of hosts where no task proved it (hosting alone, a one-shot start), so `terraform plan -refresh-only` right after an apply reports no change; " +
			"hosts they did not touch keep their values. The plan of an update shows as unknown only the values of hosts it may change: hosts it adds, " +
			"every host when it starts, stops, hosts, unhosts, restarts or reloads the process, and after a spec change the hosts that were not hosted. " +
			"Read-only. Runtime facts that change without anyone acting (pid, version, start time) are not kept in the state: " +
			"read them, for any host, with the `gse_process_status` data source.",
	}
}

func timeoutsSchema(ctx context.Context) schema.Attribute {
	d := "How long %s may take, as a positive duration such as `30s` or `15m`. Defaults to `10m`; tasks still pending then fail the apply, naming each host."
	t := plumbing.ResourceTimeouts(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true,
		CreateDescription: fmt.Sprintf(d, "create (register, host or start, poll)"),
		ReadDescription: "How long a refresh (`list_agent_state` through the gateway, `get_proc_status_v2`) may take, as a positive duration such as `30s` or `2m`. " +
			"Defaults to `10m`; a refresh still retrying then (an installation throttling the calls) fails naming the API, and the state stays as it was.",
		UpdateDescription: fmt.Sprintf(d, "an update"),
		DeleteDescription: fmt.Sprintf(d, "destroy (stop or unhost, unregister)"),
	})
	t.MarkdownDescription = "Deadlines of create, refresh, update and delete, each including every API call, retry and task poll."
	return t
}
