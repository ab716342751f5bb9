package cmdb

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/cmdbfilter"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

var _ datasource.DataSourceWithConfigure = (*cmdbHostsDataSource)(nil)

// cmdbHostsDataSource lists a business's hosts from bk-cmdb (list_biz_hosts)
// in the forms the other resources take them.
type cmdbHostsDataSource struct{ client *gse.Client }

// NewHostsDataSource is gse_cmdb_hosts.
func NewHostsDataSource() datasource.DataSource { return &cmdbHostsDataSource{} }

type cmdbHostsModel struct {
	BkBizID        types.Int64       `tfsdk:"bk_biz_id"`
	BkSetIDs       []types.Int64     `tfsdk:"bk_set_ids"`
	BkModuleIDs    []types.Int64     `tfsdk:"bk_module_ids"`
	Filter         *cmdbfilter.Model `tfsdk:"filter"`
	AllowEmpty     types.Bool        `tfsdk:"allow_empty"`
	Hosts          types.List        `tfsdk:"hosts"`
	IPList         types.List        `tfsdk:"ip_list"`
	BkHostIDs      types.List        `tfsdk:"bk_host_ids"`
	Count          types.Int64       `tfsdk:"host_count"`
	SkippedHostIDs types.List        `tfsdk:"skipped_host_ids"`
	Timeouts       timeouts.Value    `tfsdk:"timeouts"`
}

func (d *cmdbHostsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cmdb_hosts"
}

func (d *cmdbHostsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = plumbing.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *cmdbHostsDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	ids := func(what string, most int) schema.ListAttribute {
		return schema.ListAttribute{
			Optional: true, ElementType: types.Int64Type,
			MarkdownDescription: fmt.Sprintf("Only the hosts of these %s (ids, at most %d); unset: every host of the business. With both set ids and module ids, a host must be in both.", what, most),
			Validators:          []validator.List{listvalidator.SizeBetween(1, most), listvalidator.UniqueValues(), listvalidator.ValueInt64sAre(int64validator.AtLeast(1))},
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Hosts of a BlueKing business from bk-cmdb (`list_biz_hosts`), by set, module and host properties, ordered by `bk_host_id`: " +
			"`hosts` for `gse_managed_process`, `gse_process_status` and `gse_process_operation`, `ip_list` for the JOB resources. " +
			"Through the bk-cmdb gateway when the provider's `cmdb_gateway_url` is set, else through ESB (`endpoint`). " +
			"Hosts are read 500 per call, after the first page concurrently; a listing that changes while it is read is read again (three times at most), never returned in part. " +
			"So that a typo cannot plan the destruction of the hosts it leaves out, a set or module id that is not one of the business's, a selection with no host, " +
			"and a `filter` field CMDB's hosts do not have (its own, or the business's custom ones) fail the read: see `allow_empty`.",
		Attributes: map[string]schema.Attribute{
			"bk_biz_id": schema.Int64Attribute{Required: true, MarkdownDescription: "Business (业务) id, 1 or more.",
				Validators: []validator.Int64{int64validator.AtLeast(1)}},
			"bk_set_ids":    ids("sets", gse.MaxCMDBSetIDs),
			"bk_module_ids": ids("modules", gse.MaxCMDBModuleIDs),
			"filter":        cmdbfilter.DataSourceAttribute(cmdbfilter.Host),
			"allow_empty": schema.BoolAttribute{Optional: true,
				MarkdownDescription: allowEmptyDesc("host", "`bk_set_ids` or `bk_module_ids`") +
					" A value matches when it is a set (module) of the business (one `find_set_batch` or `find_module_batch` call checks each list: `list_biz_hosts` does not say which set or module a host is in). " +
					"A selection is empty when `ip_list` would be: no host listed, or none with an address."},
			"hosts": schema.ListAttribute{
				Computed: true, ElementType: hosts.ObjectType,
				MarkdownDescription: "The hosts in the form of `gse_managed_process.hosts` (assign it as is): through the GSE 2.0 gateway (`gateway_url` set), by `agent_id` where CMDB has one, " +
					"else by `ip` (the first IPv4 address, else the IPv6 one) and `bk_cloud_id`; through ESB by the first IPv4 address and `bk_cloud_id` (GSE 1.0 cannot address IPv6). " +
					"Each element holds `ip`, `bk_cloud_id`, `bk_supplier_id` (0) and `agent_id`, null where the other form is used.",
			},
			"ip_list": schema.ListAttribute{
				Computed: true, ElementType: hosts.JobIPObjectType,
				MarkdownDescription: "The hosts as the JOB resources' `ip_list`: `ip` (the first IPv4 address, else the IPv6 one) and `bk_cloud_id`, every host with an address.",
			},
			"bk_host_ids": schema.ListAttribute{Computed: true, ElementType: types.Int64Type, MarkdownDescription: "CMDB ids of the hosts in `hosts`, in the same order."},
			"host_count":  schema.Int64Attribute{Computed: true, MarkdownDescription: "How many hosts `hosts` holds (`count` is a name Terraform reserves)."},
			"skipped_host_ids": schema.ListAttribute{
				Computed: true, ElementType: types.Int64Type,
				MarkdownDescription: "CMDB ids of the selected hosts left out of `hosts`: without an address this mode can use (no address at all; through ESB, only an IPv6 one), " +
					"or the same host as an earlier one. A warning says which and why.",
			},
			"timeouts": plumbing.DataSourceTimeouts(ctx),
		},
	}
}

func (d *cmdbHostsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m cmdbHostsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := plumbing.Deadline(ctx, m.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	found := d.list(ctx, &m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	biz := m.BkBizID.ValueInt64()
	sel := selectHosts(found, d.client.Gateway())
	if w := sel.skippedWarning(d.client.Gateway()); w != "" {
		resp.Diagnostics.AddWarning(fmt.Sprintf("%s of business %d left out", plumbing.HostCount(len(sel.skipped)), biz), w)
	}
	switch {
	case len(found) == 0:
		reportEmpty(&resp.Diagnostics, "host", biz, "list_biz_hosts lists no host for bk_set_ids, bk_module_ids and filter together.", m.AllowEmpty.ValueBool())
	case len(sel.ipList.Elements()) == 0:
		reportEmpty(&resp.Diagnostics, "host", biz, fmt.Sprintf("None of the %s listed has an address (see skipped_host_ids).", plumbing.HostCount(len(found))), m.AllowEmpty.ValueBool())
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m.Hosts, m.IPList, m.BkHostIDs, m.SkippedHostIDs = sel.hosts, sel.ipList, sel.ids, sel.skippedIDs()
	m.Count = types.Int64Value(int64(len(sel.hosts.Elements())))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// list reads the hosts m selects, after checking the fields of its filter,
// and checks its selectors against the business; nil after an error in diags.
func (d *cmdbHostsDataSource) list(ctx context.Context, m *cmdbHostsModel, diags *diag.Diagnostics) []gse.CMDBHost {
	q := gse.HostQuery{BizID: m.BkBizID.ValueInt64(), SetIDs: int64s(m.BkSetIDs), ModuleIDs: int64s(m.BkModuleIDs), Filter: m.Filter.Expand(cmdbfilter.Host)}
	if !cmdbfilter.CheckFields(ctx, d.client, q.BizID, cmdbfilter.Host, m.Filter, path.Root("filter"), adviceOf(d.client), diags) {
		return nil
	}
	found, err := d.client.CMDB.ListBizHosts(ctx, q)
	if err != nil {
		diags.AddError(fmt.Sprintf("Could not list the hosts of business %d", q.BizID), err.Error()+"\n\n"+cmdbAdvice(d.client, err))
		return nil
	}
	unmatched, err := unmatchedHostSelectors(ctx, d.client, q.BizID, m)
	if err != nil {
		diags.AddError(fmt.Sprintf("Could not check bk_set_ids and bk_module_ids against business %d", q.BizID), err.Error()+"\n\n"+cmdbAdvice(d.client, err))
		return nil
	}
	reportUnmatched(diags, "host", q.BizID, unmatched, m.AllowEmpty.ValueBool())
	return found
}

func int64s(vs []types.Int64) []int64 {
	if vs == nil {
		return nil
	}
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = v.ValueInt64()
	}
	return out
}
