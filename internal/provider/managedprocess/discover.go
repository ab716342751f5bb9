package managedprocess

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// namespaceTarget names a whole namespace in an error ("process namespace gse/*").
type namespaceTarget string

func (n namespaceTarget) String() string { return string(n) + "/*" }

// addDiscoverError reports a failed discovery (the list resource, import by
// identity) as plumbing.AddAPIError does, and, where the installation has no
// sync_proc_status, says what imports instead.
func addDiscoverError(diags *diag.Diagnostics, action string, target fmt.Stringer, err error, next string) {
	if api, ok := gse.MissingAPI(err); ok && api == "sync_proc_status" {
		next = strings.TrimSpace("Listing the processes of a namespace (the gse_managed_process list resource, terraform query) and import by identity need it. " +
			"Import by ID instead, naming the hosts: terraform import gse_managed_process.NAME 'namespace/name@bk_cloud_id:bk_supplier_id:ip[,...]', " +
			"or an import block with that id.\n\n" + next)
	}
	plumbing.AddAPIError(diags, action, target, err, next)
}

// discoveredProcess is a process found in GSE: its meta (labels included)
// and one confirmed status entry per host, ordered by cloud id and IP.
type discoveredProcess struct {
	Meta    gse.Meta
	Entries []gse.ProcStatus
}

// discoverProcesses finds the processes of namespace that keep accepts. It
// lists the namespace with sync_proc_status, then confirms each process with
// get_proc_status_v2 on the hosts listed: sync data can be minutes old, so a
// host no longer registered is dropped, and a process left with none too.
// keep is asked twice, of the listed meta and of the confirmed one (labels
// may have changed since). Processes come ordered by name.
func discoverProcesses(ctx context.Context, c *gse.Client, namespace string, keep func(gse.Meta) bool) ([]discoveredProcess, error) {
	listed, err := c.Proc.ListProcStatus(ctx, namespace)
	if err != nil {
		return nil, err
	}
	hostsOf := map[string][]gse.Host{}
	var names []string
	for _, e := range listed {
		if !keep(e.Meta) {
			continue
		}
		if _, ok := hostsOf[e.Meta.Name]; !ok {
			names = append(names, e.Meta.Name)
		}
		hostsOf[e.Meta.Name] = append(hostsOf[e.Meta.Name], e.Target()) // through the gateway by agent id
	}
	sort.Strings(names)
	var out []discoveredProcess
	for _, name := range names {
		meta := gse.Meta{Namespace: namespace, Name: name}
		byKey, err := status.Find(ctx, c, meta, hostsOf[name])
		if err != nil {
			return nil, err
		}
		if len(byKey) == 0 {
			continue
		}
		entries := slices.Collect(maps.Values(byKey))
		slices.SortFunc(entries, func(a, b gse.ProcStatus) int { return hosts.CompareByAddress(addressOf(a), addressOf(b)) })
		meta.Labels = entries[0].Meta.Labels
		if keep(meta) {
			out = append(out, discoveredProcess{Meta: meta, Entries: entries})
		}
	}
	return out, nil
}

// flattenHosts are the process's hosts as gse_managed_process holds them (addressOf).
func (d discoveredProcess) flattenHosts() []hosts.Model {
	out := make([]hosts.Model, len(d.Entries))
	for i, e := range d.Entries {
		h := addressOf(e)
		out[i] = hosts.Model{IP: types.StringValue(h.IP), BkCloudID: types.Int64Value(h.BkCloudID), BkSupplierID: types.Int64Value(h.BkSupplierID)}
		if h.AgentID != "" {
			out[i] = hosts.Model{AgentID: types.StringValue(h.AgentID), BkSupplierID: types.Int64Value(0)}
		}
	}
	return out
}

// addressOf is the host of a discovered entry as gse_managed_process holds
// it: through the gateway by agent id (agent-id installations refuse
// {bk_cloud_id}:{ip}), by ip and bk_cloud_id where the agent id is of that
// form (agent-id mode off) or GSE is reached through ESB.
func addressOf(e gse.ProcStatus) gse.Host {
	h := e.Target()
	if cloud, ip, ok := hosts.CloudIPAgent(h.AgentID); ok {
		return gse.Host{IP: ip, BkCloudID: cloud, BkSupplierID: h.BkSupplierID}
	}
	return h
}

// flattenMeta is the meta block, labels null when the process has none.
func (d discoveredProcess) flattenMeta(ctx context.Context) (spec.Meta, diag.Diagnostics) {
	m := spec.Meta{Namespace: types.StringValue(d.Meta.Namespace), Name: types.StringValue(d.Meta.Name), Labels: types.MapNull(types.StringType)}
	var diags diag.Diagnostics
	if len(d.Meta.Labels) > 0 {
		m.Labels, diags = types.MapValueFrom(ctx, types.StringType, d.Meta.Labels)
	}
	return m, diags
}

// flatten is the resource as a refresh after import would read it: managed
// when every host hosts the process; running only when every host runs it
// and hosts it (any other value would fail validation in generated
// configuration: running = false needs managed = false); spec null, because
// GSE has no API that returns a registered spec.
func (d discoveredProcess) flatten(ctx context.Context) (managedProcessModel, diag.Diagnostics) {
	meta, diags := d.flattenMeta(ctx)
	models := d.flattenHosts()
	list := hosts.NewList(models)
	var hosted, running int
	for _, e := range d.Entries {
		if e.IsAuto {
			hosted++
		}
		if e.Status == gse.StateRunning {
			running++
		}
	}
	m := managedProcessModel{
		ID: types.StringValue(d.Meta.String()), Meta: meta, Hosts: list,
		Managed: types.BoolValue(hosted == len(models)), Running: types.BoolNull(),
		RestartTriggers: types.MapNull(types.StringType), ReloadTriggers: types.MapNull(types.StringType),
		HostStatus: status.Observed{Found: d.byKey()}.HostStatus(list.Pairs(), status.HostStatus{}),
		Timeouts:   timeoutsNull(ctx),
	}
	if hosted == len(models) && running == len(models) {
		m.Running = types.BoolValue(true)
	}
	return m, diags
}

// byKey indexes the confirmed entries by host identity, as status.Find does.
func (d discoveredProcess) byKey() map[string]gse.ProcStatus {
	out := make(map[string]gse.ProcStatus, len(d.Entries))
	for _, e := range d.Entries {
		out[e.Host.Key()] = e
	}
	return out
}

// labelsMatch: every wanted label is on the process with the same value.
func labelsMatch(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// timeoutsNull is an unset timeouts block of gse_managed_process.
func timeoutsNull(ctx context.Context) timeouts.Value {
	t, _ := timeoutsSchema(ctx).GetType().(attr.TypeWithAttributeTypes)
	return timeouts.Value{Object: types.ObjectNull(t.AttributeTypes())}
}
