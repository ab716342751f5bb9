package jobmanagedprocess

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

var scopeTypes = []string{"biz", "biz_set"}

// jobManagedProcessSchema is the schema of gse_job_managed_process.
func jobManagedProcessSchema(ctx context.Context) schema.Schema {
	attrs := spec.JobAttributes(spec.HostingFields, []string{"setup_path", "proc_name", "pid_path"}, []string{"proc_name", "setup_path", "value_key"})
	attrs["type"] = schema.Int64Attribute{Required: true, Validators: spec.JobFields["type"].Ints,
		MarkdownDescription: spec.JobFields["type"].Desc + " Required: `operate_process` would otherwise send `0`, a periodic process with a `cycle_time` of 0."}
	attrs["account"] = schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("root"),
		MarkdownDescription: spec.JobFields["account"].Desc + " Defaults to `root`, as the JOB server does.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)}}
	attrs["id"] = schema.StringAttribute{Computed: true,
		MarkdownDescription: "`bk_scope_type:bk_scope_id/setup_path/proc_name`, followed by `?value_key=...` when `value_key` is set.",
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	attrs["bk_scope_type"] = schema.StringAttribute{Required: true,
		MarkdownDescription: "Scope of the process: `biz` (a business) or `biz_set` (a business set). Changing it replaces the resource.",
		Validators:          []validator.String{stringvalidator.OneOf(scopeTypes...)},
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}}
	attrs["bk_scope_id"] = schema.StringAttribute{Required: true,
		MarkdownDescription: "Id of the business or business set, as a string such as `\"2\"`. Changing it replaces the resource.",
		Validators:          []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^[0-9]+$`), "must be a number written as a string, such as \"2\"")},
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}}
	attrs["ip_list"] = hosts.JobIPListAttribute("Hosts the process is hosted on. Adding an IP registers hosting there; removing one unregisters it there.")
	attrs["ip_status"] = schema.MapNestedAttribute{
		Computed: true,
		MarkdownDescription: "Runtime state per IP, keyed `bk_cloud_id:ip`, from the status query (op_type 2 through `operate_process`) of the last apply or refresh. " +
			"Read-only; it changes outside Terraform (pids) without causing a diff.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"status": schema.StringAttribute{Computed: true,
				MarkdownDescription: "`running` when any instance has a pid, `stopped`, or `error (...)` when the query failed on the IP or its answer was unreadable."},
			"managed": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether the agent hosts the process (`isAuto` of any instance); null when the answer does not say."},
			"pid":               schema.Int64Attribute{Computed: true, MarkdownDescription: "Process id of the first running instance; `-1` when none runs."},
			"version":           schema.StringAttribute{Computed: true, MarkdownDescription: "Version the agent reports (of a running instance first)."},
			"running_instances": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many instances have a pid; compare with `instance_num`."},
		}},
	}
	attrs["rollout"] = rollout.Attribute("It governs each hosting step: registering hosting (op_type 3) on create and on added IPs, " +
		"registering kept IPs again after a definition change, and unregistering hosting (op_type 4) on removed IPs. `wait_running` applies to registering " +
		"and suits resident processes (`type = 1`), which the agent pulls up. What a stopped rollout leaves in the state: " +
		"removed IPs that were unregistered leave `ip_list`, added IPs that were registered join it, and a definition change stays unapplied " +
		"(the prior definition is kept, so the next apply registers every kept IP again). A create that stops keeps the registered batches, tainted.")
	attrs["timeouts"] = plumbing.ResourceTimeouts(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true})
	return schema.Schema{
		Version: 1,
		MarkdownDescription: "A process definition hosted (托管) on a set of IPs through the JOB platform's `operate_process`: op_type 3 registers hosting, " +
			"4 unregisters it (the JOB server hands them to GSE's register / unregister hosting, as BlueKing's monitor hosted processes through JOB), " +
			"for installations that manage processes through JOB rather than GSE directly. Each task is polled with `get_proc_result` until every IP is done. " +
			"Refresh runs a status query (op_type 2 through `operate_process`), so an IP whose agent says the process is no longer hosted leaves `ip_list` and shows up as drift; " +
			"an IP whose answer does not say (no `isAuto`), fails or is unreadable is kept.\n\n" +
			"`manage_proc` is not used: its document numbers 1 register and 2 unregister, but the open-source JOB server passes them to GSE unchanged, " +
			"where 1 stops the process and 2 queries it.\n\n" +
			"**JOB versions:** the JOB process APIs exist up to JOB 3.6. JOB 3.7 and later no longer serve them " +
			"(every call fails at once with a message saying so): use `gse_managed_process` there.",
		Attributes: attrs,
	}
}
