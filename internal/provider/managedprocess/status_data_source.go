package managedprocess

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

var _ datasource.DataSourceWithConfigure = (*processStatusDataSource)(nil)

type processStatusDataSource struct{ client *gse.Client }

// NewStatusDataSource is gse_process_status.
func NewStatusDataSource() datasource.DataSource { return &processStatusDataSource{} }

type processStatusModel struct {
	Meta       spec.MetaRef    `tfsdk:"meta"`
	Hosts      []hosts.GSERef  `tfsdk:"hosts"`
	ProcInfos  []procInfoModel `tfsdk:"proc_infos"`
	AllRunning types.Bool      `tfsdk:"all_running"`
	Timeouts   timeouts.Value  `tfsdk:"timeouts"`
}

type procInfoModel struct {
	Key            types.String  `tfsdk:"key"`
	IP             types.String  `tfsdk:"ip"`
	BkCloudID      types.Int64   `tfsdk:"bk_cloud_id"`
	AgentID        types.String  `tfsdk:"agent_id"`
	Status         types.String  `tfsdk:"status"`
	ExpectedStatus types.String  `tfsdk:"expected_status"`
	Managed        types.Bool    `tfsdk:"managed"`
	PID            types.Int64   `tfsdk:"pid"`
	Version        types.String  `tfsdk:"version"`
	RegisterTime   types.Int64   `tfsdk:"register_time"`
	LastStartTime  types.Int64   `tfsdk:"last_start_time"`
	ReportTime     types.Int64   `tfsdk:"report_time"`
	CPUUsage       types.Float64 `tfsdk:"cpu_usage"`
	MemUsage       types.Float64 `tfsdk:"mem_usage"`
}

func (d *processStatusDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_process_status"
}

func (d *processStatusDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = plumbing.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *processStatusDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runtime state of a GSE process on a set of hosts, read with `get_proc_status_v2`. " +
			"Use `all_running` in `check` blocks and postconditions.",
		Attributes: map[string]schema.Attribute{
			"meta": schema.SingleNestedAttribute{
				Required: true, MarkdownDescription: "The process to look up.",
				Attributes: map[string]schema.Attribute{
					"namespace": schema.StringAttribute{Required: true, MarkdownDescription: "Namespace of the process.", Validators: []validator.String{plumbing.MetaName()}},
					"name":      schema.StringAttribute{Required: true, MarkdownDescription: "Name of the process.", Validators: []validator.String{plumbing.MetaName()}},
				},
			},
			"hosts": schema.ListNestedAttribute{
				Required: true, MarkdownDescription: "Hosts to read, in any order, each by `ip` and `bk_cloud_id` or by `agent_id`; looked up 1000 per call. The same host twice (cloud id and IP in any spelling, or as agent id `{bk_cloud_id}:{ip}`) is rejected. " +
					"Through the gateway, a host whose agent is not running has no status: it is listed as `unknown` with a warning naming it.",
				Validators:   []validator.List{hosts.Validator{}},
				NestedObject: schema.NestedAttributeObject{Attributes: hosts.GSERefAttributes()},
			},
			"proc_infos": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "One entry per requested host, ordered by `bk_cloud_id` then `ip`, hosts by `agent_id` first, ordered by it.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key": schema.StringAttribute{Computed: true, MarkdownDescription: "The host as `gse_managed_process.host_status` keys it: its `agent_id`, or `{bk_cloud_id}:{ip}`. " +
						"`{ for p in data.gse_process_status.s.proc_infos : p.key => p }` lines up with `host_status`."},
					"ip":              schema.StringAttribute{Computed: true, MarkdownDescription: "IP address, as requested; null for a host requested by `agent_id`."},
					"bk_cloud_id":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Cloud area id; null for a host requested by `agent_id`."},
					"agent_id":        schema.StringAttribute{Computed: true, MarkdownDescription: "Agent id, as requested; null for a host requested by `ip`."},
					"status":          schema.StringAttribute{Computed: true, MarkdownDescription: "Actual state: `running`, `stopped`, `unregistered` when the process is not registered on the host, or `unknown` when the host's GSE agent is not running (gateway mode; `expected_status` is then null)."},
					"expected_status": schema.StringAttribute{Computed: true, MarkdownDescription: "State GSE expects (`flag`): `running`, `stopped` or `unregistered`."},
					"managed":         schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the agent hosts the process (`isauto`)."},
					"pid":             schema.Int64Attribute{Computed: true, MarkdownDescription: "Process id; `-1` or `0` when not running."},
					"version":         schema.StringAttribute{Computed: true, MarkdownDescription: "Version reported by `version_cmd`."},
					"register_time":   schema.Int64Attribute{Computed: true, MarkdownDescription: "Unix time of registration."},
					"last_start_time": schema.Int64Attribute{Computed: true, MarkdownDescription: "Unix time of the last start."},
					"report_time":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Unix time of the agent's last report."},
					"cpu_usage":       schema.Float64Attribute{Computed: true, MarkdownDescription: "CPU usage in percent."},
					"mem_usage":       schema.Float64Attribute{Computed: true, MarkdownDescription: "Memory usage in percent."},
				}},
			},
			"all_running": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the process is running on every requested host."},
			"timeouts":    plumbing.DataSourceTimeouts(ctx),
		},
	}
}

func (d *processStatusDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m processStatusModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := plumbing.Deadline(ctx, m.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	meta := m.Meta.Expand()
	targets := plumbing.Each(m.Hosts, hosts.GSERef.Expand)
	if err := hosts.NeedsGateway(d.client, targets); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("hosts"), "Hosts that need gateway_url", err.Error())
		return
	}
	slices.SortFunc(targets, hosts.CompareByAddress)
	obs, err := status.Read(ctx, d.client, meta, targets)
	if err != nil {
		plumbing.AddAPIError(&resp.Diagnostics, "read the status of", meta, err, "Check the provider configuration (endpoint or gateway_url), then plan again.")
		return
	}
	allRunning := true
	m.ProcInfos = make([]procInfoModel, 0, len(targets))
	for _, h := range targets {
		e, seen := obs.At(h)
		if seen == status.Absent {
			e = gse.ProcStatus{Status: gse.StateUnregistered, Flag: gse.StateUnregistered}
		}
		allRunning = allRunning && e.Status == gse.StateRunning
		state, expected := types.StringValue(status.Name(e.Status)), types.StringValue(status.Name(e.Flag))
		if seen == status.Unknown {
			state, expected, allRunning = types.StringValue("unknown"), types.StringNull(), false
		}
		ip, cloud, agent := types.StringValue(h.IP), types.Int64Value(h.BkCloudID), types.StringNull()
		if h.AgentID != "" {
			ip, cloud, agent = types.StringNull(), types.Int64Null(), types.StringValue(h.AgentID)
		}
		m.ProcInfos = append(m.ProcInfos, procInfoModel{
			Key: types.StringValue(h.Address()), IP: ip, BkCloudID: cloud, AgentID: agent,
			Status: state, ExpectedStatus: expected,
			Managed: types.BoolValue(e.IsAuto), PID: types.Int64Value(e.PID), Version: types.StringValue(e.Version),
			RegisterTime: types.Int64Value(e.RegisterTime), LastStartTime: types.Int64Value(e.LastStartTime),
			ReportTime: types.Int64Value(e.ReportTime), CPUUsage: types.Float64Value(e.CPUUsage), MemUsage: types.Float64Value(e.MemUsage),
		})
	}
	hosts.WarnAgentsDown(&resp.Diagnostics, "process "+meta.String(), obs.Down)
	m.AllRunning = types.BoolValue(allRunning)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
