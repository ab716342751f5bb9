package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

const importIDFormat = "namespace/name@bk_cloud_id:bk_supplier_id:ip[,bk_cloud_id:bk_supplier_id:ip...], such as gse/proc-test@0:0:10.0.0.1,0:0:10.0.0.2; " +
	"through the gateway a host may be agent_id={agent_id} too, such as gse/proc-test@agent_id=0200000007525400f355781710390005465c,0:0:10.0.0.2"

// ImportState takes namespace/name@cloud:supplier:ip,... . The spec cannot be
// read back from GSE: it stays empty until the next apply sends it.
func (r *managedProcessResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	meta, hosts, err := parseImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID for gse_managed_process",
			fmt.Sprintf("%s. Expected %s; got %q.", err, importIDFormat, req.ID))
		return
	}
	if err := needsGateway(r.client, each(hosts, hostModel.api)); err != nil {
		resp.Diagnostics.AddError("Invalid import ID for gse_managed_process", err.Error()+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), meta.Namespace.ValueString()+"/"+meta.Name.ValueString())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("meta"), meta)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("hosts"), hosts)...)
}

func parseImportID(id string) (metaModel, []hostModel, error) {
	var meta metaModel
	target, list, ok := strings.Cut(id, "@")
	if !ok {
		return meta, nil, fmt.Errorf("missing '@' between the process and its hosts")
	}
	ns, name, ok := strings.Cut(target, "/")
	if !ok || ns == "" || name == "" || !metaNameRE.MatchString(ns) || !metaNameRE.MatchString(name) {
		return meta, nil, fmt.Errorf("the process %q is not namespace/name", target)
	}
	meta = metaModel{Namespace: types.StringValue(ns), Name: types.StringValue(name), Labels: types.MapNull(types.StringType)}
	var hosts []hostModel
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		var h hostModel
		if agent, ok := strings.CutPrefix(item, "agent_id="); ok {
			if msg := checkAgentID(agent); msg != "" {
				return meta, nil, fmt.Errorf("host %q: the agent id %s", item, msg)
			}
			h = hostModel{AgentID: types.StringValue(agent), BkSupplierID: types.Int64Value(0)}
		} else {
			parsed, err := parseImportHosts(item, true, "host")
			if err != nil {
				return meta, nil, err
			}
			p := parsed[0]
			h = hostModel{IP: types.StringValue(p.ip), BkCloudID: types.Int64Value(p.cloud), BkSupplierID: types.Int64Value(p.supplier)}
		}
		id := knownHost{ip: h.IP.ValueString(), cloud: h.BkCloudID.ValueInt64(), agentID: h.AgentID.ValueString()}.identity()
		if seen[id] {
			return meta, nil, fmt.Errorf("host %q is listed twice", item)
		}
		seen[id] = true
		hosts = append(hosts, h)
	}
	return meta, hosts, nil
}
