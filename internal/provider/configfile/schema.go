package configfile

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
)

var (
	positiveInt = regexp.MustCompile(`^[1-9][0-9]*$`)
	fileNameRE  = regexp.MustCompile(`^[^/\\]+$`)
)

var hostStatusType = types.ObjectType{AttrTypes: map[string]attr.Type{"status": types.StringType, "sha256": types.StringType}}

// configFileSchema is the schema of gse_config_file.
func configFileSchema(ctx context.Context) schema.Schema {
	hostsAttr := hosts.PackedAttribute("Hosts the file goes to, as `gse_managed_process` takes them (`hosts = data.gse_cmdb_hosts.x.hosts` works). " +
		"JOB v3 addresses hosts by IPv4 and cloud, or by CMDB host id: a host given by `agent_id` or an IPv6 address is looked up in CMDB (by `bk_agent_id`, or its address) " +
		"for its `bk_host_id`, which needs CMDB (`endpoint` or `cmdb_gateway_url`) and a business scope. Set `hosts` or `bk_host_ids`.")
	hostsAttr.Required, hostsAttr.Optional = false, true
	return schema.Schema{
		MarkdownDescription: "A text file on a set of hosts, pushed with JOB's `push_config_file` (one job per apply, not per host) and polled with `get_job_instance_status` to each host's result. " +
			"`sha256` is known at plan whenever the content is, so `restart_triggers = { conf = gse_config_file.x.sha256 }` of a `gse_managed_process` restarts it in the same apply, after the push, in its rollout batches. " +
			"An update pushes only to the hosts whose file is not this content (a new content, a host added, a host whose push failed or whose file `verify` found changed). " +
			"`push_count` changes at every apply that pushes, the repair of a file `verify` found changed included: a reload trigger on it reloads the process after a repair too. " +
			"A host removed from the resource keeps its file, and destroy leaves the files in place: a running process may still read them.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`{bk_scope_type}:{bk_scope_id}:{path}/{file_name}`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"bk_scope_type": schema.StringAttribute{Required: true, MarkdownDescription: "JOB scope: `biz` (a business) or `biz_set` (a business set).",
				Validators: []validator.String{stringvalidator.OneOf("biz", "biz_set")}, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"bk_scope_id": schema.StringAttribute{Required: true, MarkdownDescription: "The business (or business set) id, such as `\"2\"`.",
				Validators: []validator.String{stringvalidator.RegexMatches(positiveInt, "must be a positive integer")}, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"hosts": hostsAttr,
			"bk_host_ids": schema.ListAttribute{Optional: true, ElementType: types.Int64Type,
				MarkdownDescription: "Hosts by CMDB host id (`data.gse_cmdb_hosts.x.bk_host_ids`), which JOB takes as they are. Set `hosts` or `bk_host_ids`.",
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues(), listvalidator.ValueInt64sAre(int64validator.AtLeast(1))}},
			"path": schema.StringAttribute{Required: true,
				MarkdownDescription: "Directory the file goes to (`file_target_path`): absolute, such as `/data/nginx/conf` or `C:\\nginx\\conf` on Windows. JOB does not check it before it runs: a bad one fails on each host. " +
					"A directory that does not start with `/` is a Windows one, as JOB reads it: `verify` reads its files with PowerShell there, and with `sha256sum` otherwise.",
				Validators:    []validator.String{plumbing.AbsolutePath()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"file_name": schema.StringAttribute{Required: true,
				MarkdownDescription: "The file's name, without a directory (JOB drops any: `getPureFileName`). JOB trims the spaces and control characters around it; a name that is blank once trimmed is refused.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1), stringvalidator.NoneOf(".", ".."), stringvalidator.RegexMatches(fileNameRE, "must not hold / or \\")},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"account": schema.StringAttribute{Required: true,
				MarkdownDescription: "JOB execution account (alias) of the business that writes the file, such as `root`: its owner on the hosts. Not a Unix user name: an account JOB knows; one it does not is refused naming it (1244003).",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)}},
			"content": schema.StringAttribute{Optional: true, Sensitive: true,
				MarkdownDescription: "The file's text, written as it is (no line-ending conversion: use `\\r\\n` for Windows). Not empty: JOB cannot push an empty file (1241002); whitespace alone is pushed. " +
					"At most 15,000,000 bytes: JOB reads the file as one Base64 string of at most 20,000,000 characters. Sensitive: a plan shows `(sensitive value)`, not the lines that change (see \"Seeing a change before apply\"). Set `content` or `content_wo`."},
			"content_wo": schema.StringAttribute{Optional: true, WriteOnly: true,
				MarkdownDescription: "The file's text, never stored in the state (Terraform 1.11+, a write-only argument): only its `sha256` is. It is pushed when `content_wo_version` changes (and to hosts that lack it). For files holding credentials."},
			"content_wo_version": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Any value to change when `content_wo` changes: Terraform cannot compare a write-only argument with the state. Required with `content_wo`."},
			"verify": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Read each host's file at every refresh (one JOB script, `fast_execute_script`, for all the hosts, and its output: `sha256sum` as `account`, or PowerShell for a Windows `path`), report it in `host_status` (`match`, `differs`, `missing`, `unreachable`) and plan a push where it is not this content. " +
					"A host whose read fails, or prints neither a SHA-256 nor `MISSING`, fails the refresh naming the host and what it printed. Off by default: it costs a JOB job at every plan."},
			"rollout": rollout.Attribute("It governs the push: one JOB job per batch of the hosts that need the file, in order; a stopped rollout leaves the later hosts with their old file, " +
				"and the next apply pushes to them. `wait_running` does not apply here (a file does not run)."),
			"sha256": schema.StringAttribute{Computed: true,
				MarkdownDescription: "SHA-256 of the content (hex): known at plan when the content is, for the triggers of the processes that read the file. It changes with the content only: a push that repairs a host's file leaves it as it is (see `push_count`)."},
			"push_count": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "How many applies of this resource pushed the file: 1 after the create, one more at each apply that pushes it to any host (a new content, a host added, a host whose push failed, a file `verify` found changed or missing). " +
					"Known at plan when the plan pushes; unknown when only the apply can tell (`verify` just turned on). " +
					"`reload_triggers = { conf = gse_config_file.x.push_count }` reloads the process after every push, the repair of a file edited by hand included, which `sha256` does not."},
			"host_status": schema.MapAttribute{Computed: true, ElementType: hostStatusType,
				MarkdownDescription: "Each host's file, keyed as `gse_managed_process.host_status` (agent id, `{bk_cloud_id}:{ip}`, or `host:{bk_host_id}`): `status` `pushed` (by the last apply), `match`, `differs`, `missing` or `unreachable` " +
					"(what `verify` read; `unreachable` also for a push that failed), and the `sha256` it holds where known."},
			"timeouts": plumbing.ResourceTimeouts(ctx, timeouts.Opts{Create: true, Update: true, Read: true}),
		},
	}
}
