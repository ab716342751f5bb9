package provider

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
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
	var hosts []hostModel
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		parts := strings.SplitN(item, ":", 3) // the IP comes last: an IPv6 address holds ':'
		if len(parts) != 3 {
			return meta, nil, fmt.Errorf("host %q is not bk_cloud_id:bk_supplier_id:ip", item)
		}
		cloud, err1 := strconv.ParseInt(parts[0], 10, 64)
		supplier, err2 := strconv.ParseInt(parts[1], 10, 64)
		if err1 != nil || err2 != nil || cloud < 0 || supplier < 0 {
			return meta, nil, fmt.Errorf("host %q: bk_cloud_id and bk_supplier_id must be non-negative integers", item)
		}
		if _, err := netip.ParseAddr(parts[2]); err != nil {
			return meta, nil, fmt.Errorf("host %q: %q is not an IP address", item, parts[2])
		}
		h := hostModel{IP: types.StringValue(parts[2]), BkCloudID: types.Int64Value(cloud), BkSupplierID: types.Int64Value(supplier)}
		if seen[h.api().Addr()] {
			return meta, nil, fmt.Errorf("host %q is listed twice", item)
		}
		seen[h.api().Addr()] = true
		hosts = append(hosts, h)
	}
	return meta, hosts, nil
}
