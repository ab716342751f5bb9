package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

const importIDFormat = "namespace/name@bk_cloud_id:bk_supplier_id:ip[,bk_cloud_id:bk_supplier_id:ip...], such as gse/proc-test@0:0:10.0.0.1,0:0:10.0.0.2"

// ImportState takes namespace/name@cloud:supplier:ip,... . The spec cannot be
// read back from GSE: it stays empty until the next apply sends it.
func (r *managedProcessResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	meta, hosts, err := parseImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID for gse_managed_process",
			fmt.Sprintf("%s. Expected %s; got %q.", err, importIDFormat, req.ID))
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
	parsed, err := parseImportHosts(list, true, "host")
	if err != nil {
		return meta, nil, err
	}
	hosts := make([]hostModel, len(parsed))
	for i, h := range parsed {
		hosts[i] = hostModel{IP: types.StringValue(h.ip), BkCloudID: types.Int64Value(h.cloud), BkSupplierID: types.Int64Value(h.supplier)}
	}
	return meta, hosts, nil
}
