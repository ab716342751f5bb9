package cmdb

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/cmdbfilter"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/gsekit"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

var _ datasource.DataSourceWithConfigure = (*cmdbProcessesDataSource)(nil)

// cmdbProcessesDataSource reads a business's processes as CMDB defines them
// (list_process_related_info) and makes them gse_managed_process groups,
// named and specified as GSEKit sends them.
type cmdbProcessesDataSource struct{ client *gse.Client }

// NewProcessesDataSource is gse_cmdb_processes.
func NewProcessesDataSource() datasource.DataSource { return &cmdbProcessesDataSource{} }

type cmdbProcessesModel struct {
	BkBizID            types.Int64       `tfsdk:"bk_biz_id"`
	BkSetIDs           []types.Int64     `tfsdk:"bk_set_ids"`
	BkModuleIDs        []types.Int64     `tfsdk:"bk_module_ids"`
	ServiceInstanceIDs []types.Int64     `tfsdk:"service_instance_ids"`
	BkSetEnv           types.String      `tfsdk:"bk_set_env"`
	ProcessNames       []types.String    `tfsdk:"process_names"`
	Filter             *cmdbfilter.Model `tfsdk:"filter"`
	Namespace          types.String      `tfsdk:"namespace"`
	AllowEmpty         types.Bool        `tfsdk:"allow_empty"`
	WithInstances      types.Bool        `tfsdk:"with_instances"`
	Groups             groupsValue       `tfsdk:"groups"`
	Processes          types.List        `tfsdk:"processes"`
	Instances          instancesValue    `tfsdk:"instances"`
	Skipped            types.List        `tfsdk:"skipped"`
	Timeouts           timeouts.Value    `tfsdk:"timeouts"`
}

// The types of the outputs: groups' values in the types of
// gse_managed_process's meta, spec and hosts (each host with the CMDB facts
// gse_service takes, which gse_managed_process leaves aside).
var (
	metaType  = types.ObjectType{AttrTypes: map[string]attr.Type{"namespace": types.StringType, "name": types.StringType, "labels": types.MapType{ElemType: types.StringType}}}
	groupType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"meta": metaType, "spec": spec.TypedAttribute.GetType(), "hosts": types.ListType{ElemType: groupHostType}, "priority": types.Int64Type,
	}}
	// groupHostType is an element of a group's hosts: the host as
	// gse_managed_process.hosts takes it (which leaves the rest aside), and
	// the CMDB facts of the group's instance on it that gse_service takes.
	groupHostType = types.ObjectType{AttrTypes: func() map[string]attr.Type {
		out := maps.Clone(hosts.ObjectType.AttrTypes)
		out["bk_host_id"], out["bk_set_id"], out["bk_module_id"] = types.Int64Type, types.Int64Type, types.Int64Type
		out["bind_info"] = types.ListType{ElemType: bindInfoType}
		return out
	}()}
	processType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"group": types.StringType, "namespace": types.StringType, "name": types.StringType, "local_inst_id": types.Int64Type,
		"bk_process_id": types.Int64Type, "bk_process_name": types.StringType, "bk_func_name": types.StringType, "priority": types.Int64Type,
		"bk_host_id": types.Int64Type, "bk_set_id": types.Int64Type, "bk_set_name": types.StringType, "bk_module_id": types.Int64Type,
		"bk_module_name": types.StringType, "service_instance_id": types.Int64Type, "process_template_id": types.Int64Type,
	}}
	skippedType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"bk_process_id": types.Int64Type, "bk_process_name": types.StringType, "local_inst_id": types.Int64Type, "bk_host_id": types.Int64Type, "reason": types.StringType,
	}}
)

// setEnvs are bk_set_env's values (CMDB's set model).
var setEnvs = []string{"1", "2", "3"}

func (d *cmdbProcessesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cmdb_processes"
}

func (d *cmdbProcessesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = plumbing.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *cmdbProcessesDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	ids := func(desc string) schema.ListAttribute {
		return schema.ListAttribute{Optional: true, ElementType: types.Int64Type, MarkdownDescription: desc,
			Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues(), listvalidator.ValueInt64sAre(int64validator.AtLeast(1))}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The processes of a BlueKing business as CMDB defines them (service templates, process templates and the process instances on each host of a module), " +
			"read with bk-cmdb's `list_process_related_info` and turned into groups of GSE processes the way GSEKit and bk-bscp turn them into GSE operations: " +
			"a whole business runs as one `gse_service` with `processes = data.gse_cmdb_processes.x.groups` and `instances = data.gse_cmdb_processes.x.instances` " +
			"(`with_instances = true`), in CMDB priority order; one group as a `gse_managed_process` with `meta`, `spec` and `hosts` of its element. " +
			"`list_process_related_info` is hidden: the app needs its grant (the bk-cmdb gateway's resource, or ESB's component). " +
			"Addresses and agent ids come from `list_biz_hosts`, as `gse_cmdb_hosts` reads them. " +
			"So that a typo cannot plan the destruction of the processes it leaves out, a selector value that matches no process of the business, a selection with no process, " +
			"and a `filter` field CMDB's processes do not have fail the read: see `allow_empty`.",
		Attributes: map[string]schema.Attribute{
			"bk_biz_id":            schema.Int64Attribute{Required: true, MarkdownDescription: "The business (`bk_biz_id`).", Validators: []validator.Int64{int64validator.AtLeast(1)}},
			"bk_set_ids":           ids("Only the processes of these sets; unset: every set. With `bk_module_ids` too, a module must be in both."),
			"bk_module_ids":        ids("Only the processes of these modules; unset: every module."),
			"service_instance_ids": ids("Only the processes of these service instances (a host in a module); unset: every one."),
			"bk_set_env": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Only the processes of sets of this environment: `1` test, `2` experience, `3` production (`bk_set_env`; filtered here, as GSEKit does: the API has no such filter).",
				Validators:          []validator.String{stringvalidator.OneOf(setEnvs...)}},
			"process_names": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Only the processes with these CMDB aliases (`bk_process_name`), sent as a `process_property_filter` rule (the documented `bk_process_names` field is ignored by CMDB).",
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues(), listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))}},
			"filter": cmdbfilter.DataSourceAttribute(cmdbfilter.Process),
			"allow_empty": schema.BoolAttribute{Optional: true,
				MarkdownDescription: allowEmptyDesc("process", "`bk_set_ids`, `bk_module_ids`, `service_instance_ids` or `process_names`") +
					" A value matches when the business has a process in it (with that name), whatever the other selectors leave: " +
					"when more than one selector or a `filter` narrows the listing, each selector's values missing from the result cost one more `list_process_related_info` call, of those values alone. " +
					"A selection is empty when `groups` would be: no process listed, or every instance in `skipped`."},
			"with_instances": schema.BoolAttribute{Optional: true, MarkdownDescription: withInstancesDesc},
			"namespace": schema.StringAttribute{Optional: true,
				MarkdownDescription: "GSE namespace of the processes. Default `GSEKIT_BIZ_{bk_biz_id}`, GSEKit's and bk-bscp's, so that the processes they already run are the same GSE processes; " +
					"a namespace of your own keeps Terraform's apart from theirs.",
				Validators: []validator.String{plumbing.MetaName()}},
			"groups": schema.StringAttribute{Computed: true, CustomType: groupsPackedType{},
				MarkdownDescription: "The processes as `gse_managed_process` takes them, keyed `{namespace}/{name}`: one GSE process name per CMDB alias and instance number " +
					"(`{bk_process_name}_{local_inst_id}`, instances 1 to `proc_num` on each host, as GSEKit names them), with `meta` (labels null), `spec` and `hosts` in the types of " +
					"`gse_managed_process` (each host also with `bk_host_id`, `bk_set_id`, `bk_module_id` and `bind_info` of the process instance on it, null unless `with_instances = true`, " +
					"which `gse_service` orders and checks by and `gse_managed_process` leaves aside), and `priority` (CMDB's, 0 where it has none, as GSEKit orders it). A name whose instances render to different specs on different hosts (a template naming `${bk_module_name}`, two " +
					"templates sharing an alias, an instance edited by hand) gives one group per spec: the one holding the lowest process template, module, set and service instance keeps the key " +
					"`{namespace}/{name}`, the others `{namespace}/{name}/{origin}` (`tpl{id}`, `tpl{id}-mod{id}`, `tpl{id}-set{id}` or `inst{id}`, the coarsest CMDB object they alone " +
					"come from). Keys depend on where instances come from, never on their spec, so a command edited in CMDB plans an in-place update. " +
					"The spec is what GSEKit sends: `identity` from `bk_func_name`, `work_path`, `pid_file` and `user`; `control` from the start, stop, restart, reload and `face_stop_cmd` (as `kill_cmd`) " +
					"commands; resident (`auto_type = 1`), `start_check_secs` `bk_start_check_secs` or 5, `op_timeout` `timeout` or 60; `resource` 0 and 0, no limits. Paths and commands are rendered (see `skipped`)."},
			"processes": schema.ListAttribute{Computed: true, ElementType: processType,
				MarkdownDescription: "One element per process instance and host, in `bk_process_id` and instance order: the GSE `namespace` and `name`, its `group` key, and the CMDB ids and names behind it."},
			"instances": schema.StringAttribute{Computed: true, CustomType: instancesPackedType{}, MarkdownDescription: instancesDesc},
			"skipped": schema.ListAttribute{Computed: true, ElementType: skippedType,
				MarkdownDescription: "Instances left out of `groups`, each with its process, instance, host and the reason (the CMDB field and the rule are named): " +
					"a path or command GSEKit renders with what needs Mako or its own database (`${inst_id}`, `% if`, a function call; nothing is sent half-rendered), " +
					"or that Mako itself refuses (an integer with a leading zero such as `010`, a `</%x>` without its tag, a backslash ending a line); " +
					"`start_cmd`, `work_path`, `pid_file` or `user` left empty (GSEKit starts and hosts no process without them; an empty `stop_cmd`, `restart_cmd` or " +
					"`reload_cmd` skips nothing, and fails the plan of a `gse_managed_process` that runs its operation); a value `gse_managed_process` refuses " +
					"(an alias whose name would hold whitespace, `:`, `/`, `@` or `,`, a `work_path` or `pid_file` that is no absolute path); the same alias as the same " +
					"instance twice on one host (a host in two modules both running it: GSEKit's `DuplicateProcessInstException`), which skips every one of them; " +
					"a set not found; or a host without an address this provider can use (through ESB, an IPv6-only host: set `gateway_url`). " +
					"A warning names them at every read, with what to do about each kind."},
			"timeouts": plumbing.DataSourceTimeouts(ctx),
		},
	}
}

func (d *cmdbProcessesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m cmdbProcessesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := plumbing.Deadline(ctx, m.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	biz := m.BkBizID.ValueInt64()
	rows, byName := d.list(ctx, &m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	env := m.BkSetEnv.ValueString()
	rows = filterRows(rows, func(r gse.ProcessRow) bool { return (env == "" || r.Set.Env == env) && byName(r.Process.Name) })
	found, err := d.client.CMDB.HostsByID(ctx, biz, rowHostIDs(rows))
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("Could not list the hosts of the processes of business %d", biz), err.Error()+"\n\n"+cmdbAdvice(d.client, err))
		return
	}
	ns := m.Namespace.ValueString()
	if ns == "" {
		ns = fmt.Sprintf("GSEKIT_BIZ_%d", biz)
	}
	gateway := d.client.Gateway()
	out := gsekit.BuildGroups(rows, gsekitHosts(found, gateway), ns, spec.Refuse)
	if w := skippedWarning(out.Skipped, gateway); w != "" {
		resp.Diagnostics.AddWarning(fmt.Sprintf("%s of business %d left out", plumbing.Count(len(out.Skipped), "process instance"), biz), w)
	}
	if len(out.Groups) == 0 {
		why := "list_process_related_info lists no process for bk_set_ids, bk_module_ids, service_instance_ids, process_names, bk_set_env and filter together."
		if len(out.Skipped) > 0 {
			why = fmt.Sprintf("Every one of the %d process instances selected is in skipped (see the warning).", len(out.Skipped))
		}
		reportEmpty(&resp.Diagnostics, "process", biz, why, m.AllowEmpty.ValueBool())
	}
	resp.Diagnostics.Append(processesValues(ctx, out, gateway, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// list reads the processes m selects, after checking the fields of its
// filter, and checks its selectors against what the business has: the rows
// as list_process_related_info answers them (before bk_set_env) and which
// of their names to keep (withNames); nothing after an error in diags.
func (d *cmdbProcessesDataSource) list(ctx context.Context, m *cmdbProcessesModel, diags *diag.Diagnostics) ([]gse.ProcessRow, func(string) bool) {
	biz := m.BkBizID.ValueInt64()
	fail := func(what string, err error) {
		diags.AddError(fmt.Sprintf("Could not %s of business %d", what, biz), err.Error()+"\n\n"+cmdbAdvice(d.client, err))
	}
	if !cmdbfilter.CheckFields(ctx, d.client, biz, cmdbfilter.Process, m.Filter, path.Root("filter"), adviceOf(d.client), diags) {
		return nil, nil
	}
	filter, byName := withNames(m.Filter.Expand(cmdbfilter.Process), m.ProcessNames)
	q := gse.ProcessQuery{BizID: biz, SetIDs: int64s(m.BkSetIDs), ModuleIDs: int64s(m.BkModuleIDs), ServiceInstanceIDs: int64s(m.ServiceInstanceIDs), Filter: filter}
	rows, err := d.client.CMDB.ListProcessRelatedInfo(ctx, q)
	if err != nil {
		fail("list the processes", err)
		return nil, nil
	}
	found, err := unmatchedProcessSelectors(ctx, d.client, biz, m, rows)
	if err != nil {
		fail("check the selectors' values against the processes", err)
		return nil, nil
	}
	reportUnmatched(diags, "process", biz, found, m.AllowEmpty.ValueBool())
	return rows, byName
}

// withNames adds process_names to the filter as a rule ANDed with it, and
// says which names to keep of what the server answers: all of them, unless
// the rule cannot be sent (a filter whose root is OR over groups would
// then be deeper than CMDB's three levels), and the names are kept here.
func withNames(f *gse.HostFilter, names []types.String) (*gse.HostFilter, func(string) bool) {
	if len(names) == 0 {
		return f, func(string) bool { return true }
	}
	vs := make([]any, len(names))
	set := make(map[string]bool, len(names))
	for i, n := range names {
		vs[i], set[n.ValueString()] = n.ValueString(), true
	}
	rule := gse.HostRule{Field: "bk_process_name", Operator: "in", Value: vs}
	all := func(string) bool { return true }
	switch {
	case f == nil:
		return &gse.HostFilter{Condition: "AND", Rules: []gse.HostRule{rule}}, all
	case f.Condition == "AND":
		return &gse.HostFilter{Condition: "AND", Rules: append(f.Rules, rule)}, all
	case !slices.ContainsFunc(f.Rules, func(r gse.HostRule) bool { return r.Condition != "" }):
		return &gse.HostFilter{Condition: "AND", Rules: []gse.HostRule{{Condition: f.Condition, Rules: f.Rules}, rule}}, all
	}
	return f, func(name string) bool { return set[name] }
}

func filterRows(rows []gse.ProcessRow, keep func(gse.ProcessRow) bool) []gse.ProcessRow {
	out := rows[:0]
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func rowHostIDs(rows []gse.ProcessRow) []int64 {
	seen := map[int64]bool{}
	var ids []int64
	for _, r := range rows {
		if !seen[r.Host.ID] {
			seen[r.Host.ID] = true
			ids = append(ids, r.Host.ID)
		}
	}
	return ids
}
