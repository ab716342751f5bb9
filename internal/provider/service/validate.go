package service

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
)

// bindInfoModel is a row of an instance's bind_info.
type bindInfoModel struct {
	Enable        types.Bool   `tfsdk:"enable"`
	IP            types.String `tfsdk:"ip"`
	Port          types.String `tfsdk:"port"`
	Protocol      types.String `tfsdk:"protocol"`
	TemplateRowID types.Int64  `tfsdk:"template_row_id"`
}

// ValidateConfig checks what spans attributes: the health gate's JOB checks
// and config_files need the business JOB runs them in, and the canary's
// select filters the business CMDB lists hosts of.
func (r *serviceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var h *healthModel
	var biz types.Int64
	var fs packedMap[configFilesSchema]
	var ro *rolloutModel
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("health"), &h)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("rollout"), &ro)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("bk_biz_id"), &biz)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("config_files"), &fs)...)
	if resp.Diagnostics.HasError() || !biz.IsNull() {
		return
	}
	filtered := ro != nil && ro.Canary != nil && ro.Canary.Select != nil && ro.Canary.Select.filtered()
	for _, need := range []struct {
		set       bool
		what, how string
	}{
		{h != nil && h.TCP != nil, "health.tcp", "runs through JOB (fast_execute_script)"},
		{h != nil && h.Script != nil, "health.script", "runs through JOB (fast_execute_script)"},
		{!fs.IsNull(), "config_files", "runs through JOB (push_config_file)"},
		{filtered, "rollout.canary.select's filters", "are read from CMDB (list_biz_hosts_topo)"},
	} {
		if need.set {
			resp.Diagnostics.AddAttributeError(path.Root("bk_biz_id"), "Missing bk_biz_id",
				fmt.Sprintf("%s %s, in a business: set bk_biz_id to the CMDB business of the service's hosts.", need.what, need.how))
		}
	}
}

// checkPorts is the plan-time check of health.tcp: ports from bind_info
// need every instance's bind_info from CMDB (processes' hosts or instances,
// as gse_cmdb_processes gives them), each in CMDB's format.
func checkPorts(m *serviceModel, d *desired, diags *diag.Diagnostics) {
	if m.Health == nil || m.Health.TCP == nil {
		return
	}
	var without []string
	for k, in := range d.models {
		if in.BindInfo.IsNull() {
			without = append(without, k)
		}
	}
	if len(without) > 0 {
		slices.Sort(without)
		diags.AddAttributeError(path.Root("health").AtName("tcp").AtName("ports"), "health.tcp needs bind_info",
			"health.tcp.ports = \"bind_info\" takes each instance's ports from CMDB's bind_info, which these instances lack: pass processes = data.gse_cmdb_processes.<name>.groups "+
				"read with_instances = true (each host with the bind_info of its instance), or give bind_info in processes' hosts or in instances."+listed("\n\n", without))
		return
	}
	for _, k := range slices.Sorted(maps.Keys(d.models)) {
		if _, err := portsOf(d.models[k]); err != nil {
			diags.AddAttributeError(path.Root("instances").AtMapKey(k).AtName("bind_info"), "Invalid bind_info",
				fmt.Sprintf("instances[%q]: %s. Correct the process's bind_info in CMDB.", k, err))
		}
	}
}

// portsOf are the TCP ports of m's bind_info (health.Ports).
func portsOf(m instanceModel) ([]int, error) {
	if m.BindInfo.IsNull() || m.BindInfo.IsUnknown() {
		return nil, nil
	}
	var rows []bindInfoModel
	if d := m.BindInfo.ElementsAs(context.Background(), &rows, false); d.HasError() {
		return nil, fmt.Errorf("bind_info: %s", d.Errors()[0].Detail())
	}
	out := make([]health.BindInfo, len(rows))
	for i, r := range rows {
		out[i] = health.BindInfo{Enable: r.Enable.ValueBool(), IP: r.IP.ValueString(), Port: r.Port.ValueString(), Protocol: r.Protocol.ValueString()}
	}
	return health.Ports(out)
}
