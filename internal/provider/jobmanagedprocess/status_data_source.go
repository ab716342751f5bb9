package jobmanagedprocess

import (
	"context"
	"errors"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

var _ datasource.DataSourceWithConfigure = (*jobProcessStatusDataSource)(nil)

// jobProcessStatusDataSource runs a status query (op_type 2) through JOB's
// operate_process and reads each IP's answer.
type jobProcessStatusDataSource struct{ client *gse.Client }

// NewStatusDataSource is gse_job_process_status.
func NewStatusDataSource() datasource.DataSource { return &jobProcessStatusDataSource{} }

type jobProcessStatusModel struct {
	BkBizID    types.Int64        `tfsdk:"bk_biz_id"`
	SetupPath  types.String       `tfsdk:"setup_path"`
	ProcName   types.String       `tfsdk:"proc_name"`
	PidPath    types.String       `tfsdk:"pid_path"`
	Account    types.String       `tfsdk:"account"`
	IPList     []hosts.Ref        `tfsdk:"ip_list"`
	IPStatus   []jobIPStatusModel `tfsdk:"ip_status"`
	AllRunning types.Bool         `tfsdk:"all_running"`
	Timeouts   timeouts.Value     `tfsdk:"timeouts"`
}

type jobIPStatusModel struct {
	IP               types.String `tfsdk:"ip"`
	BkCloudID        types.Int64  `tfsdk:"bk_cloud_id"`
	Status           types.String `tfsdk:"status"`
	Managed          types.Bool   `tfsdk:"managed"`
	PID              types.Int64  `tfsdk:"pid"`
	Version          types.String `tfsdk:"version"`
	RunningInstances types.Int64  `tfsdk:"running_instances"`
	ErrorCode        types.Int64  `tfsdk:"error_code"`
	ErrorMsg         types.String `tfsdk:"error_msg"`
}

func (d *jobProcessStatusDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job_process_status"
}

func (d *jobProcessStatusDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = plumbing.ClientFrom(req.ProviderData, &resp.Diagnostics)
	plumbing.NeedsESB(d.client, "gse_job_process_status", &resp.Diagnostics)
}

func (d *jobProcessStatusDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(n string, required bool) schema.StringAttribute {
		return schema.StringAttribute{Required: required, Optional: !required, MarkdownDescription: spec.JobFields[n].Desc, Validators: spec.JobFields[n].Strs}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runtime state of a process on a set of IPs, from a status query (op_type 2) through the JOB platform's `operate_process`, " +
			"polled with `get_proc_result`. Each read runs one GSE task. Needs JOB 3.6 or earlier: JOB 3.7 and later no longer serve `operate_process` " +
			"(the read fails at once saying so); use `gse_process_status` there.",
		Attributes: map[string]schema.Attribute{
			"bk_biz_id":  schema.Int64Attribute{Required: true, MarkdownDescription: "Business id.", Validators: []validator.Int64{int64validator.AtLeast(0)}},
			"setup_path": str("setup_path", true),
			"proc_name":  str("proc_name", true),
			"pid_path":   str("pid_path", true),
			"account":    str("account", false),
			"ip_list":    hosts.JobIPListDataSourceAttribute("IPs to query."),
			"ip_status": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "One entry per IP, ordered by `bk_cloud_id` then `ip`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"ip":          schema.StringAttribute{Computed: true, MarkdownDescription: "IP address."},
					"bk_cloud_id": schema.Int64Attribute{Computed: true, MarkdownDescription: "Cloud area id."},
					"status": schema.StringAttribute{Computed: true,
						MarkdownDescription: "`running` when any instance has a pid, `stopped`, `error (GSE code N)` when the query failed on the IP, or `error (unreadable content)`."},
					"managed":           schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the agent hosts the process (`isAuto` of any instance); null when the answer does not say."},
					"pid":               schema.Int64Attribute{Computed: true, MarkdownDescription: "Process id of the first running instance; `-1` when none runs."},
					"version":           schema.StringAttribute{Computed: true, MarkdownDescription: "Version the agent reports (of a running instance first)."},
					"running_instances": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many instances have a pid."},
					"error_code":        schema.Int64Attribute{Computed: true, MarkdownDescription: "GSE code of the IP's answer; 0 on success."},
					"error_msg":         schema.StringAttribute{Computed: true, MarkdownDescription: "GSE message of the IP's answer."},
				}},
			},
			"all_running": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the process runs (at least one instance) on every IP."},
			"timeouts":    plumbing.DataSourceTimeouts(ctx),
		},
	}
}

func (d *jobProcessStatusDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m jobProcessStatusModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The query is a task that is polled: without a deadline a host that never answers would hang the plan.
	ctx, cancel := plumbing.Deadline(ctx, m.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	scope := gse.BizScope(m.BkBizID.ValueInt64())
	ips := spec.ExpandJobIPs(m.IPList)
	proc := gse.JobProcess{SetupPath: m.SetupPath.ValueString(), ProcName: m.ProcName.ValueString(), PidPath: m.PidPath.ValueString(),
		Account: m.Account.ValueString(), IPList: ips}
	states, err := status.FindJob(ctx, d.client, scope, proc)
	var hostsErr *gse.HostsError
	switch {
	case errors.As(err, &hostsErr):
		resp.Diagnostics.AddWarning("The status query failed on some IPs", err.Error())
	case err != nil:
		plumbing.AddAPIError(&resp.Diagnostics, "query the status of", gse.TargetOf(scope, proc), err, "Check the provider configuration, bk_biz_id and the process fields.")
		return
	}
	slices.SortStableFunc(ips, func(a, b gse.JobIP) int { return hosts.Compare(a.BkCloudID, a.IP, b.BkCloudID, b.IP) })
	all := true
	m.IPStatus = make([]jobIPStatusModel, 0, len(ips))
	for _, ip := range ips {
		o, ok := states[ip.Key()]
		st := status.JobIPOf(o, ok)
		all = all && st.Status == "running"
		m.IPStatus = append(m.IPStatus, jobIPStatusModel{
			IP: types.StringValue(ip.IP), BkCloudID: types.Int64Value(ip.BkCloudID), Status: types.StringValue(st.Status),
			Managed: st.Managed, PID: types.Int64Value(st.PID), Version: types.StringValue(st.Version),
			RunningInstances: types.Int64Value(st.RunningInstances), ErrorCode: types.Int64Value(int64(st.Code)), ErrorMsg: types.StringValue(st.Msg),
		})
	}
	m.AllRunning = types.BoolValue(all)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
