package provider

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

const jobImportIDFormat = "bk_scope_type:bk_scope_id/setup_path/proc_name@bk_cloud_id:ip[,bk_cloud_id:ip...], " +
	"with setup_path written as in the configuration, such as biz:2//data/nginx/bin/nginx@0:10.0.0.1,0:10.0.0.2"

var jobScopeRE = regexp.MustCompile(`^(biz|biz_set):([0-9]+)$`)

// ImportState takes biz:<id>/<setup_path>/<proc_name>@<cloud>:<ip>,... . JOB
// cannot read a definition back: every field but these stays empty until the
// next apply registers the configuration's definition again.
func (r *jobManagedProcessResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	scope, setupPath, procName, ips, err := parseJobImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID for gse_job_managed_process", fmt.Sprintf("%s. Expected %s; got %q.", err, jobImportIDFormat, req.ID))
		return
	}
	for name, v := range map[string]any{
		"id": req.ID[:strings.LastIndex(req.ID, "@")], "bk_scope_type": scope[1], "bk_scope_id": scope[2],
		"setup_path": setupPath, "proc_name": procName, "ip_list": ips,
	} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
	}
}

func parseJobImportID(id string) (scope []string, setupPath, procName string, ips types.Set, err error) {
	target, list, ok := strings.Cut(id, "@")
	if !ok {
		return nil, "", "", ips, fmt.Errorf("missing '@' between the process and its IPs")
	}
	scopePart, proc, ok := strings.Cut(target, "/")
	if scope = jobScopeRE.FindStringSubmatch(scopePart); !ok || scope == nil {
		return nil, "", "", ips, fmt.Errorf("the scope %q is not biz:<id> or biz_set:<id>", scopePart)
	}
	i := strings.LastIndex(proc, "/")
	if i < 0 || proc[i+1:] == "" {
		return nil, "", "", ips, fmt.Errorf("%q is not setup_path/proc_name", proc)
	}
	setupPath, procName = proc[:i], proc[i+1:]
	elType := types.ObjectType{AttrTypes: map[string]attr.Type{"ip": types.StringType, "bk_cloud_id": types.Int64Type}}
	var els []attr.Value
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		cloudPart, ip, ok := strings.Cut(item, ":") // the IP comes last: an IPv6 address holds ':'
		cloud, perr := strconv.ParseInt(cloudPart, 10, 64)
		if !ok || perr != nil || cloud < 0 {
			return nil, "", "", ips, fmt.Errorf("IP %q is not bk_cloud_id:ip", item)
		}
		if _, perr := netip.ParseAddr(ip); perr != nil {
			return nil, "", "", ips, fmt.Errorf("IP %q: %q is not an IP address", item, ip)
		}
		a := jobIPAddr(gse.JobIP{IP: ip, BkCloudID: cloud})
		if seen[a] {
			return nil, "", "", ips, fmt.Errorf("IP %q is listed twice", item)
		}
		seen[a] = true
		els = append(els, types.ObjectValueMust(elType.AttrTypes, map[string]attr.Value{"ip": types.StringValue(ip), "bk_cloud_id": types.Int64Value(cloud)}))
	}
	return scope, setupPath, procName, types.SetValueMust(elType, els), nil
}
