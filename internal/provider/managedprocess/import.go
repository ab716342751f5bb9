package managedprocess

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

const importIDFormat = "namespace/name@host[,host...], each host bk_cloud_id:bk_supplier_id:ip or bk_cloud_id:ip (the spelling of provider::gse::agent_id; " +
	"an IPv6 host needs the first form), such as gse/proc-test@0:0:10.0.0.1,0:10.0.0.2; " +
	"through the gateway a host may be agent_id={agent_id} too, such as gse/proc-test@agent_id=0200000007525400f355781710390005465c,0:0:10.0.0.2"

// importByID imports namespace/name@cloud:supplier:ip,... (or cloud:ip). The
// spec cannot be read back from GSE: it stays empty until the next apply
// sends it. The process must be registered on every host of the ID: the
// error names those where it is not, which Terraform's own "Cannot import
// non-existent remote object", after a read that found nothing, would not.
func importByID(ctx context.Context, c *gse.Client, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	meta, models, err := parseImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID for gse_managed_process",
			fmt.Sprintf("%s. Expected %s; got %q.", err, importIDFormat, req.ID))
		return
	}
	list := hosts.NewList(models)
	apiHosts := list.Expand()
	if err := hosts.NeedsGateway(c, apiHosts); err != nil {
		resp.Diagnostics.AddError("Invalid import ID for gse_managed_process", err.Error()+".")
		return
	}
	apiMeta, _ := meta.Expand(ctx)
	found, err := status.Find(ctx, c, apiMeta, apiHosts)
	if err != nil {
		plumbing.AddAPIError(&resp.Diagnostics, "import", apiMeta, err, "Nothing was imported; run the import again once GSE answers.")
		return
	}
	if missing := plumbing.SelectBy(apiHosts, gse.Host.Key, slices.Collect(maps.Keys(found)), false); len(missing) > 0 {
		resp.Diagnostics.AddError(fmt.Sprintf("Process %s not found on %d of %d hosts", apiMeta, len(missing), len(apiHosts)),
			fmt.Sprintf("get_proc_status_v2 finds process %s not registered on %s. Check the namespace, name and hosts of the import ID "+
				"(through the gateway, also that the GSE agent runs there), or leave these hosts out of it; terraform query with the "+
				"gse_managed_process list resource (Terraform 1.14+) lists where the namespace's processes are. "+
				"If the ID comes from an import block kept after an adoption (such as one over the groups of gse_cmdb_processes), remove the block: "+
				"its work is done once the processes are in the state, and it fails every plan in which CMDB has an instance GSE does not run yet, "+
				"which without it Terraform creates.",
				apiMeta, strings.Join(plumbing.Each(missing, gse.Host.Address), ", ")))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), meta.Namespace.ValueString()+"/"+meta.Name.ValueString())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("meta"), meta)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("hosts"), list)...)
}

func parseImportID(id string) (spec.Meta, []hosts.Model, error) {
	var meta spec.Meta
	target, list, ok := strings.Cut(id, "@")
	if !ok {
		return meta, nil, fmt.Errorf("missing '@' between the process and its hosts")
	}
	ns, name, ok := strings.Cut(target, "/")
	if !ok || ns == "" || name == "" || !plumbing.MetaNameRE.MatchString(ns) || !plumbing.MetaNameRE.MatchString(name) {
		return meta, nil, fmt.Errorf("the process %q is not namespace/name", target)
	}
	meta = spec.Meta{Namespace: types.StringValue(ns), Name: types.StringValue(name), Labels: types.MapNull(types.StringType)}
	var models []hosts.Model
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		var h hosts.Model
		if agent, ok := strings.CutPrefix(item, "agent_id="); ok {
			if msg := hosts.CheckAgentID(agent); msg != "" {
				return meta, nil, fmt.Errorf("host %q: the agent id %s", item, msg)
			}
			h = hosts.Model{AgentID: types.StringValue(agent), BkSupplierID: types.Int64Value(0)}
		} else {
			parsed, err := hosts.ParseImport(item, true, "host")
			if err != nil && strings.Count(item, ":") == 1 { // bk_cloud_id:ip, as provider::gse::agent_id spells a host
				parsed, err = hosts.ParseImport(item, false, "host")
			}
			if err != nil {
				return meta, nil, err
			}
			p := parsed[0]
			h = hosts.Model{IP: types.StringValue(p.IP), BkCloudID: types.Int64Value(p.Cloud), BkSupplierID: types.Int64Value(p.Supplier)}
		}
		id := h.Expand().Key()
		if seen[id] {
			return meta, nil, fmt.Errorf("host %q is listed twice", item)
		}
		seen[id] = true
		models = append(models, h)
	}
	return meta, models, nil
}
