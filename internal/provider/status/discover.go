package status

import (
	"context"
	"maps"
	"slices"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
)

// Discovered is a process found in GSE: its meta (labels included) and one
// confirmed status entry per host, ordered by cloud id and IP.
type Discovered struct {
	Meta    gse.Meta
	Entries []gse.ProcStatus
}

// Discover finds the processes of namespace that keep accepts: what
// gse_managed_process's list resource and import by identity, and
// gse_service's import, adopt. It lists the namespace with sync_proc_status,
// then confirms each process with get_proc_status_v2 (Find) on the hosts
// listed: sync data can be minutes old, so a host no longer registered is
// dropped, and a process left with none too. keep is asked twice, of the
// listed meta and of the confirmed one (labels may have changed since).
// Processes come ordered by name.
func Discover(ctx context.Context, c *gse.Client, namespace string, keep func(gse.Meta) bool) ([]Discovered, error) {
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
	var out []Discovered
	for _, name := range names {
		meta := gse.Meta{Namespace: namespace, Name: name}
		byKey, err := Find(ctx, c, meta, hostsOf[name])
		if err != nil {
			return nil, err
		}
		if len(byKey) == 0 {
			continue
		}
		entries := slices.Collect(maps.Values(byKey))
		slices.SortFunc(entries, func(a, b gse.ProcStatus) int { return hosts.CompareByAddress(AddressOf(a), AddressOf(b)) })
		meta.Labels = entries[0].Meta.Labels
		if keep(meta) {
			out = append(out, Discovered{Meta: meta, Entries: entries})
		}
	}
	return out, nil
}

// Hosts are the process's hosts as a configuration names them (AddressOf),
// in the order of Entries.
func (d Discovered) Hosts() []hosts.Model {
	out := make([]hosts.Model, len(d.Entries))
	for i, e := range d.Entries {
		h := AddressOf(e)
		out[i] = hosts.Model{IP: types.StringValue(h.IP), BkCloudID: types.Int64Value(h.BkCloudID), BkSupplierID: types.Int64Value(h.BkSupplierID)}
		if h.AgentID != "" {
			out[i] = hosts.Model{AgentID: types.StringValue(h.AgentID), BkSupplierID: types.Int64Value(0)}
		}
	}
	return out
}

// AddressOf is the host of a discovered entry as a configuration names it:
// through the gateway by agent id (agent-id installations refuse
// {bk_cloud_id}:{ip}), by ip and bk_cloud_id where the agent id is of that
// form (agent-id mode off) or GSE is reached through ESB.
func AddressOf(e gse.ProcStatus) gse.Host {
	h := e.Target()
	if cloud, ip, ok := hosts.CloudIPAgent(h.AgentID); ok {
		return gse.Host{IP: ip, BkCloudID: cloud, BkSupplierID: h.BkSupplierID}
	}
	return h
}
