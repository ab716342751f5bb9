package service

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/cmdbfilter"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// rollout.canary.select: ids tested on each instance as processes gives
// them, and CMDB property filters of the hosts' sets, modules and
// themselves, which CMDB evaluates: the language of gse_cmdb_hosts.filter,
// over the three filters of list_biz_hosts_topo (bk-cmdb host_server
// ListBizHostsTopo), read once, and only when a plan picks a canary.

var selectPath = path.Root("rollout").AtName("canary").AtName("select")

// The objects select's filters test, as list_biz_hosts_topo takes them.
var (
	selectSets    = cmdbfilter.Set
	selectModules = cmdbfilter.Module
	selectHosts   = cmdbfilter.Host.In("`host_property_filter` of `list_biz_hosts_topo`")
)

// selector is rollout.canary.select as a test of an instance, made when a
// plan first needs it; nil after an error in the diagnostics.
type selector func() func(*instance) bool

// selectorOf is m's selector, reading CMDB through c for its filters.
func selectorOf(ctx context.Context, c *gse.Client, m *serviceModel, diags *diag.Diagnostics) selector {
	return func() func(*instance) bool {
		var s *selectModel
		if m.Rollout != nil && m.Rollout.Canary != nil {
			s = m.Rollout.Canary.Select
		}
		if s == nil || !s.filtered() {
			return selection(s, nil)
		}
		hosts, ok := filteredHosts(ctx, c, m.BkBizID.ValueInt64(), s, diags)
		if !ok {
			return nil
		}
		return selection(s, hosts)
	}
}

// filtered says whether select has a filter for CMDB to evaluate.
func (s *selectModel) filtered() bool {
	return s.SetPropertyFilter != nil || s.ModulePropertyFilter != nil || s.HostPropertyFilter != nil
}

// filteredHosts are the bk_host_ids of business biz that list_biz_hosts_topo
// lists for s's filters together, once their fields are checked.
func filteredHosts(ctx context.Context, c *gse.Client, biz int64, s *selectModel, diags *diag.Diagnostics) (map[int64]bool, bool) {
	for _, f := range []struct {
		name string
		obj  cmdbfilter.Object
		m    *cmdbfilter.Model
	}{{"set_property_filter", selectSets, s.SetPropertyFilter}, {"module_property_filter", selectModules, s.ModulePropertyFilter}, {"host_property_filter", selectHosts, s.HostPropertyFilter}} {
		if f.m != nil && !cmdbfilter.CheckFields(ctx, c, biz, f.obj, f.m, selectPath.AtName(f.name), plumbing.CallAdvice, diags) {
			return nil, false
		}
	}
	found, err := c.CMDB.ListBizHostsTopo(ctx, gse.TopoQuery{BizID: biz,
		SetFilter: s.SetPropertyFilter.Expand(selectSets), ModuleFilter: s.ModulePropertyFilter.Expand(selectModules), HostFilter: s.HostPropertyFilter.Expand(selectHosts)})
	if err != nil {
		diags.AddAttributeError(selectPath, "Could not read the canary's hosts from CMDB",
			fmt.Sprintf("rollout.canary.select's filters are CMDB's to evaluate (list_biz_hosts_topo in business %d), and the read failed: %s\n\n%s", biz, err, plumbing.CallAdvice(err)))
		return nil, false
	}
	hosts := make(map[int64]bool, len(found))
	for _, h := range found {
		hosts[h.Host.BkHostID] = true
	}
	return hosts, true
}

// selection is select as a test of an instance: its ids on the instance's
// set, module and host, and its filters' hosts (nil: no filter); true for
// every instance without select.
func selection(s *selectModel, filtered map[int64]bool) func(*instance) bool {
	if s == nil {
		return func(*instance) bool { return true }
	}
	sets, modules, hs := int64Set(s.BkSetIDs), int64Set(s.BkModuleIDs), int64Set(s.BkHostIDs)
	in := func(ids map[int64]bool, id int64) bool { return ids == nil || ids[id] }
	return func(i *instance) bool {
		return in(sets, i.set) && in(modules, i.module) && in(hs, i.bkHostID) && in(filtered, i.bkHostID)
	}
}

// int64Set is a set of numbers as a lookup; nil when unset.
func int64Set(s types.Set) map[int64]bool {
	if s.IsNull() || s.IsUnknown() {
		return nil
	}
	out := map[int64]bool{}
	for _, e := range s.Elements() {
		if v, ok := e.(types.Int64); ok {
			out[v.ValueInt64()] = true
		}
	}
	return out
}
