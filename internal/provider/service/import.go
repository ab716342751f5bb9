package service

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// ImportState adopts every process GSE has in the namespaces of the ID
// (comma-separated, as id holds them): each process instance on each host
// becomes an element of instances, with its status and pid. processes stays
// null until the next apply, which takes it from the configuration: GSE has
// no API that returns a registered spec, so that apply sends the spec
// (update_proc_info; through the gateway an op 3 carrying it) and operates
// on nothing that runs.
func (r *serviceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	nss, err := parseNamespaces(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID for gse_service",
			fmt.Sprintf("%s. Expected the service's GSE namespaces, comma-separated, such as GSEKIT_BIZ_2 or GSEKIT_BIZ_2,GSEKIT_BIZ_3; got %q.", err, req.ID))
		return
	}
	models := map[string]instanceModel{}
	for _, ns := range nss {
		found, err := status.Discover(ctx, r.client, ns, func(gse.Meta) bool { return true })
		if err != nil {
			plumbing.AddAPIError(&resp.Diagnostics, "list the processes of", gse.Meta{Namespace: ns, Name: "*"}, err,
				"Nothing was imported: run the import again once GSE answers.")
			return
		}
		if len(found) == 0 {
			resp.Diagnostics.AddError(fmt.Sprintf("No process in namespace %s", ns),
				fmt.Sprintf("GSE lists no registered process in namespace %q (sync_proc_status, each host confirmed with get_proc_status_v2). "+
					"Check the namespace (GSEKit's is GSEKIT_BIZ_{bk_biz_id}); leave it out of the import ID, or create the service instead of importing it.", ns))
			return
		}
		for _, d := range found {
			maps.Copy(models, discoveredInstances(d))
		}
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), strings.Join(nss, ","))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("instances"), instancesValue(models, &resp.Diagnostics))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("schedule"), scheduleValue(ctx, nil, &resp.Diagnostics))...)
	failed, pending := counts(models)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("failed_count"), failed)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("pending_count"), pending)...)
}

// parseNamespaces is an import ID's namespaces, sorted as id holds them.
func parseNamespaces(id string) ([]string, error) {
	var out []string
	for ns := range strings.SplitSeq(id, ",") {
		ns = strings.TrimSpace(ns)
		switch {
		case !plumbing.MetaNameRE.MatchString(ns):
			return nil, fmt.Errorf("%q is not a GSE namespace (non-empty, none of ':', '/', '@', ',' or spaces)", ns)
		case slices.Contains(out, ns):
			return nil, fmt.Errorf("namespace %q is listed twice", ns)
		}
		out = append(out, ns)
	}
	slices.Sort(out)
	return out, nil
}

// discoveredInstances are the instances of a process found in GSE, keyed
// and grouped as gse_cmdb_processes keys them, with the status and pid read.
func discoveredInstances(d status.Discovered) map[string]instanceModel {
	out := map[string]instanceModel{}
	for i, h := range d.Hosts() {
		m := newInstance(d.Meta.String(), d.Meta.Name, h, types.Int64Null())
		out[instanceKey(d.Meta, h)] = m.cleared().withOutcome(observed(d.Entries[i], true))
	}
	return out
}

// adopted is the prior of a service imported and not applied since (its
// state has no processes): it asks what the configuration asks (running,
// the triggers), so that the first apply sends the spec to each instance and
// starts, stops, restarts or reloads none that is as asked. Instances the
// import found that processes does not hold are left out of the service, not
// removed: the plan warns with their keys, and GSE keeps running them.
func adopted(p *prior, d *desired, m *serviceModel, diags *diag.Diagnostics) {
	p.running, p.restart, p.reload = d.running, m.RestartTriggers.String(), m.ReloadTriggers.String()
	var left []string
	for k := range p.models {
		if _, ok := d.models[k]; !ok {
			left = append(left, k)
			delete(p.models, k)
		}
	}
	if len(left) == 0 {
		return
	}
	slices.Sort(left)
	diags.AddWarning(fmt.Sprintf("%d imported instances left out of the service", len(left)),
		"The import found these process instances in GSE, but processes does not hold them, so the service leaves them as they are (they are neither stopped nor removed) "+
			"and they leave its state. Add their process and host to processes to manage them."+listed("\n\n", left))
}

// importedGroups gives p, imported and not applied since, the groups its
// instances name, each without a spec (GSE cannot return one): a destroy
// then stops and unregisters them with the spec GSE holds.
func importedGroups(p *prior) {
	for k, m := range p.models {
		if g := m.Group.ValueString(); p.groups[g] == nil {
			p.groups[g] = &group{key: g, meta: keyMeta(k)}
		}
	}
}

// refuseSpecless fails the destroy of a service imported and not applied
// since through the GSE 2.0 gateway, before anything is sent: the gateway
// stops and unhosts a process only by an operation carrying its spec
// (operate_proc, which acts on the registered one, is ESB's alone), and
// GSE returns no spec to send.
func refuseSpecless(c *gse.Client, s *serviceModel, diags *diag.Diagnostics) bool {
	if !c.Gateway() || !s.Processes.IsNull() {
		return false
	}
	diags.AddError("Cannot destroy a service imported and never applied",
		fmt.Sprintf("gse_service %s was imported and has not been applied since, so the provider has no spec of its processes, and the GSE 2.0 gateway stops a process "+
			"only with an operation carrying its spec. Nothing was sent. Run terraform apply once (it sends the spec and starts, stops or restarts nothing that runs as asked), "+
			"then destroy; or terraform state rm the service to leave its processes as they are.", s.ID.ValueString()))
	return true
}
