package gsekit

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// From CMDB's process rows to gse_managed_process groups, as GSEKit turns
// them into operate_proc_multi items (gsekit
// apps/gsekit/pipeline_plugins/components/collections/gse.py
// BulkGseOperateProcessService._execute; bk-bscp
// internal/processor/gse/gse.go BuildProcessOperate): one GSE process per
// CMDB process, instance number (1 to proc_num) and host, named
// {bk_process_name}_{local_inst_id} in GSEKIT_BIZ_{bk_biz_id}.

// Group is one GSE process name and spec on its hosts, keyed
// {namespace}/{name}, or {namespace}/{name}/{origin} (groupSuffix) where
// instances of the name differ in spec.
type Group struct {
	Key       string
	Instances []*Instance
}

// Grouping is what GSEKit's rules make of the rows.
type Grouping struct {
	Namespace string
	Groups    []*Group
	Instances []*Instance // every instance in a group, in row and instance order
	Skipped   []Skipped
}

// BuildGroups turns rows into groups in namespace ns; hosts holds the rows'
// hosts by id. An instance GSEKit would refuse, or refuse would, is skipped
// instead, saying why.
func BuildGroups(rows []gse.ProcessRow, hosts map[int64]*Host, ns string, refuse Refuse) Grouping {
	out := Grouping{Namespace: ns}
	rules := instanceRules{refuse: refuse, dups: duplicates(rows, hosts)}
	byName := map[string][]*Instance{}
	var names []string
	for i := range rows {
		r := &rows[i]
		num := InstanceCount(r.Process)
		for n := int64(1); n <= num; n++ {
			in, kind, reason := rules.newInstance(r, n, hosts)
			if reason != "" {
				out.Skipped = append(out.Skipped, Skipped{Row: r, N: n, Kind: kind, Reason: reason})
				continue
			}
			if byName[in.Name] == nil {
				names = append(names, in.Name)
			}
			byName[in.Name] = append(byName[in.Name], in)
			out.Instances = append(out.Instances, in)
		}
	}
	for _, name := range names {
		out.Groups = append(out.Groups, splitBySpec(ns+"/"+name, byName[name])...)
	}
	return out
}

// splitBySpec makes the instances of one name its groups: one when they
// share a spec, else one per spec, the one holding the lowest origin keyed
// base, the others base/{origin} (groupSuffix).
func splitBySpec(base string, ins []*Instance) []*Group {
	bySpec := map[string]*Group{}
	var groups []*Group
	for _, in := range ins {
		g := bySpec[in.key]
		if g == nil {
			g = &Group{}
			bySpec[in.key] = g
			groups = append(groups, g)
		}
		g.Instances = append(g.Instances, in)
	}
	if len(groups) == 1 {
		groups[0].Key = base
		return groups
	}
	lowest := func(g *Group) [4]int64 {
		return slices.MinFunc(g.Instances, func(a, b *Instance) int { return cmpOrigin(a.origin(), b.origin()) }).origin()
	}
	slices.SortFunc(groups, func(a, b *Group) int { return cmpOrigin(lowest(a), lowest(b)) })
	groups[0].Key = base
	for _, g := range groups[1:] {
		g.Key = base + "/" + groupSuffix(g, groups)
	}
	return groups
}

func cmpOrigin(a, b [4]int64) int {
	for i := range a {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// groupSuffix names g by the coarsest CMDB object all its instances, and
// no other group's, come from: its process template, the template in one
// module or one set, else its first service instance.
func groupSuffix(g *Group, all []*Group) string {
	ids := func(gr *Group, part func(in *Instance) string) map[string]bool {
		out := map[string]bool{}
		for _, in := range gr.Instances {
			out[part(in)] = true
		}
		return out
	}
	for _, part := range []func(in *Instance) string{
		func(in *Instance) string { return fmt.Sprintf("tpl%d", in.Row.ProcessTemplate.ID) },
		func(in *Instance) string {
			return fmt.Sprintf("tpl%d-mod%d", in.Row.ProcessTemplate.ID, in.Row.Module.ID)
		},
		func(in *Instance) string { return fmt.Sprintf("tpl%d-set%d", in.Row.ProcessTemplate.ID, in.Row.Set.ID) },
	} {
		mine := ids(g, part)
		if len(mine) != 1 {
			continue
		}
		var name string
		for name = range mine {
		}
		shared := slices.ContainsFunc(all, func(o *Group) bool { return o != g && ids(o, part)[name] })
		if !shared {
			return name
		}
	}
	first := slices.MinFunc(g.Instances, func(a, b *Instance) int { return cmp.Compare(a.Row.ServiceInstance.ID, b.Row.ServiceInstance.ID) })
	return fmt.Sprintf("inst%d", first.Row.ServiceInstance.ID)
}
