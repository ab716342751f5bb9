package cmdb

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

// From CMDB's process rows to gse_managed_process groups, as GSEKit turns
// them into operate_proc_multi items (gsekit
// apps/gsekit/pipeline_plugins/components/collections/gse.py
// BulkGseOperateProcessService._execute; bk-bscp
// internal/processor/gse/gse.go BuildProcessOperate): one GSE process per
// CMDB process, instance number (1 to proc_num) and host, named
// {bk_process_name}_{local_inst_id} in GSEKIT_BIZ_{bk_biz_id}.

// GSEKit's defaults where CMDB leaves a field unset (gsekit
// DEFAULT_START_CHECK_SECS and DEFAULT_OP_TIMEOUT; bk-bscp sync_gse.go).
const (
	gsekitStartCheckSecs = 5
	gsekitOpTimeout      = 60
)

// instance is one process instance on one host.
type instance struct {
	row      *gse.ProcessRow
	n        int64 // local_inst_id
	name     string
	spec     *gse.Spec
	host     attr.Value
	priority *int64
	key      string // the spec and priority, encoded: instances of a name with the same key share a group
}

// origin is where an instance comes from, in the order groups are ranked.
func (in instance) origin() [4]int64 {
	r := in.row
	return [4]int64{r.ProcessTemplate.ID, r.Module.ID, r.Set.ID, r.ServiceInstance.ID}
}

// group is one gse_managed_process: a name and spec on its hosts.
type group struct {
	key       string
	instances []*instance
}

// skipped is an instance left out, and why.
type skipped struct {
	row    *gse.ProcessRow
	n      int64
	reason string
}

// groupsOut is what the data source makes of the rows.
type groupsOut struct {
	ns        string
	groups    []*group
	instances []*instance // every instance in a group, in row and instance order
	skipped   []skipped
}

// buildGroups turns rows into groups; found holds the rows' hosts by id.
func buildGroups(rows []gse.ProcessRow, found map[int64]gse.CMDBHost, ns string, gateway bool) groupsOut {
	out := groupsOut{ns: ns}
	objects := map[int64]attr.Value{} // each host's element, made once for all its instances
	byName := map[string][]*instance{}
	var names []string
	for i := range rows {
		r := &rows[i]
		num := int64(1)
		if r.Process.ProcNum != nil && *r.Process.ProcNum > 0 {
			num = *r.Process.ProcNum
		}
		for n := int64(1); n <= num; n++ {
			in, reason := newInstance(r, n, found, objects, gateway)
			if reason != "" {
				out.skipped = append(out.skipped, skipped{r, n, reason})
				continue
			}
			if byName[in.name] == nil {
				names = append(names, in.name)
			}
			byName[in.name] = append(byName[in.name], in)
			out.instances = append(out.instances, in)
		}
	}
	for _, name := range names {
		out.groups = append(out.groups, splitBySpec(ns+"/"+name, byName[name])...)
	}
	return out
}

// newInstance is instance n of r on its host, or why it is left out.
func newInstance(r *gse.ProcessRow, n int64, found map[int64]gse.CMDBHost, objects map[int64]attr.Value, gateway bool) (*instance, string) {
	p := r.Process
	h, ok := found[r.Host.ID]
	if !ok {
		return nil, fmt.Sprintf("bk_host_id %d is not among the business's hosts (list_biz_hosts)", r.Host.ID)
	}
	ip, reason := hostAddress(h, gateway)
	if reason != "" {
		return nil, "the host has " + reason
	}
	if r.Set.ID == 0 {
		return nil, "its set was not found (GSEKit drops such rows too)"
	}
	ctx := newRenderContext(r.Set.Name, r.Module.Name, p.Name, n)
	fields := []struct {
		name     string
		value    *string
		required bool
	}{{name: "work_path", value: p.WorkPath, required: true}, {name: "pid_file", value: p.PidFile, required: true},
		{name: "start_cmd", value: p.StartCmd, required: true}, {name: "stop_cmd", value: p.StopCmd, required: true},
		{name: "restart_cmd", value: p.RestartCmd}, {name: "reload_cmd", value: p.ReloadCmd}, {name: "face_stop_cmd", value: p.FaceStopCmd}}
	rendered := make([]string, len(fields))
	for i, f := range fields {
		v := ""
		if f.value != nil {
			v = *f.value
		}
		if v == "" {
			if f.required {
				return nil, f.name + " is empty (GSEKit refuses to operate such a process too)"
			}
			continue
		}
		s, err := render(v, ctx)
		if err != nil {
			return nil, fmt.Sprintf("%s holds %v", f.name, err)
		}
		rendered[i] = s
	}
	if p.User == nil || *p.User == "" {
		return nil, "user is empty (GSEKit refuses to operate such a process too)"
	}
	startCheck, opTimeout := int64(gsekitStartCheckSecs), int64(gsekitOpTimeout)
	if p.StartCheckSecs != nil && *p.StartCheckSecs > 0 {
		startCheck = *p.StartCheckSecs
	}
	if p.Timeout != nil && *p.Timeout > 0 {
		opTimeout = *p.Timeout
	}
	obj, ok := objects[h.BkHostID]
	if !ok {
		obj = hostObject(h, ip, gateway)
		objects[h.BkHostID] = obj
	}
	in := &instance{row: r, n: n, name: fmt.Sprintf("%s_%d", p.Name, n), priority: p.Priority, host: obj,
		spec: &gse.Spec{
			Identity: gse.Identity{ProcName: p.FuncName, SetupPath: rendered[0], PidPath: rendered[1], User: *p.User},
			Control:  gse.Control{StartCmd: rendered[2], StopCmd: rendered[3], RestartCmd: rendered[4], ReloadCmd: rendered[5], KillCmd: rendered[6]},
			// No resource block in GSEKit's items: no limits, zeros where one is required.
			Resource:      &gse.Resource{},
			MonitorPolicy: &gse.MonitorPolicy{AutoType: 1, StartCheckSecs: &startCheck, OpTimeout: &opTimeout},
		}}
	key, _ := json.Marshal(struct {
		S *gse.Spec
		P *int64
	}{in.spec, in.priority})
	in.key = string(key)
	return in, ""
}

// splitBySpec makes the instances of one name its groups: one when they
// share a spec, else one per spec, the one holding the lowest origin keyed
// base, the others base/{origin} (groupSuffix).
func splitBySpec(base string, ins []*instance) []*group {
	bySpec := map[string]*group{}
	var groups []*group
	for _, in := range ins {
		g := bySpec[in.key]
		if g == nil {
			g = &group{}
			bySpec[in.key] = g
			groups = append(groups, g)
		}
		g.instances = append(g.instances, in)
	}
	if len(groups) == 1 {
		groups[0].key = base
		return groups
	}
	lowest := func(g *group) [4]int64 {
		return slices.MinFunc(g.instances, func(a, b *instance) int { return cmpOrigin(a.origin(), b.origin()) }).origin()
	}
	slices.SortFunc(groups, func(a, b *group) int { return cmpOrigin(lowest(a), lowest(b)) })
	groups[0].key = base
	for _, g := range groups[1:] {
		g.key = base + "/" + groupSuffix(g, groups)
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
func groupSuffix(g *group, all []*group) string {
	ids := func(gr *group, part func(in *instance) string) map[string]bool {
		out := map[string]bool{}
		for _, in := range gr.instances {
			out[part(in)] = true
		}
		return out
	}
	for _, part := range []func(in *instance) string{
		func(in *instance) string { return fmt.Sprintf("tpl%d", in.row.ProcessTemplate.ID) },
		func(in *instance) string {
			return fmt.Sprintf("tpl%d-mod%d", in.row.ProcessTemplate.ID, in.row.Module.ID)
		},
		func(in *instance) string { return fmt.Sprintf("tpl%d-set%d", in.row.ProcessTemplate.ID, in.row.Set.ID) },
	} {
		mine := ids(g, part)
		if len(mine) != 1 {
			continue
		}
		var name string
		for name = range mine {
		}
		shared := slices.ContainsFunc(all, func(o *group) bool { return o != g && ids(o, part)[name] })
		if !shared {
			return name
		}
	}
	first := slices.MinFunc(g.instances, func(a, b *instance) int { return cmp.Compare(a.row.ServiceInstance.ID, b.row.ServiceInstance.ID) })
	return fmt.Sprintf("inst%d", first.row.ServiceInstance.ID)
}

// specAttrTypes are the attribute types of gse_managed_process's spec.
var specAttrTypes = func() map[string]attr.Type {
	out := map[string]attr.Type{}
	for name, a := range spec.Attribute.Attributes {
		out[name] = a.GetType()
	}
	return out
}()

// values sets m's outputs.
func (o groupsOut) values(ctx context.Context, m *cmdbProcessesModel) diag.Diagnostics {
	var diags diag.Diagnostics
	groups := make(map[string]attr.Value, len(o.groups))
	groupOf := map[*instance]string{}
	for _, g := range o.groups {
		first := g.instances[0]
		sv, d := types.ObjectValueFrom(ctx, specAttrTypes, spec.Flatten(first.spec))
		diags.Append(d...)
		hostList := make([]attr.Value, 0, len(g.instances))
		seen := map[int64]bool{}
		for _, in := range g.instances {
			groupOf[in] = g.key
			if id := in.row.Host.ID; !seen[id] {
				seen[id] = true
				hostList = append(hostList, in.host)
			}
		}
		groups[g.key] = types.ObjectValueMust(groupType.AttrTypes, map[string]attr.Value{
			"meta": types.ObjectValueMust(metaType.AttrTypes, map[string]attr.Value{
				"namespace": types.StringValue(o.ns), "name": types.StringValue(first.name), "labels": types.MapNull(types.StringType)}),
			"spec":     sv,
			"hosts":    types.ListValueMust(hosts.ObjectType, hostList),
			"priority": types.Int64PointerValue(first.priority),
		})
	}
	m.Groups = types.MapValueMust(groupType, groups)
	procs := make([]attr.Value, len(o.instances))
	for i, in := range o.instances {
		r := in.row
		procs[i] = types.ObjectValueMust(processType.AttrTypes, map[string]attr.Value{
			"group": types.StringValue(groupOf[in]), "namespace": types.StringValue(o.ns), "name": types.StringValue(in.name),
			"local_inst_id": types.Int64Value(in.n), "bk_process_id": types.Int64Value(r.Process.ID), "bk_process_name": types.StringValue(r.Process.Name),
			"bk_func_name": types.StringValue(r.Process.FuncName), "priority": types.Int64PointerValue(in.priority), "bk_host_id": types.Int64Value(r.Host.ID),
			"bk_set_id": types.Int64Value(r.Set.ID), "bk_set_name": types.StringValue(r.Set.Name), "bk_module_id": types.Int64Value(r.Module.ID),
			"bk_module_name": types.StringValue(r.Module.Name), "service_instance_id": types.Int64Value(r.ServiceInstance.ID),
			"process_template_id": types.Int64Value(r.ProcessTemplate.ID),
		})
	}
	m.Processes = types.ListValueMust(processType, procs)
	skips := make([]attr.Value, len(o.skipped))
	for i, s := range o.skipped {
		skips[i] = types.ObjectValueMust(skippedType.AttrTypes, map[string]attr.Value{
			"bk_process_id": types.Int64Value(s.row.Process.ID), "bk_process_name": types.StringValue(s.row.Process.Name),
			"local_inst_id": types.Int64Value(s.n), "bk_host_id": types.Int64Value(s.row.Host.ID), "reason": types.StringValue(s.reason),
		})
	}
	m.Skipped = types.ListValueMust(skippedType, skips)
	return diags
}

// skippedWarning names the instances left out ("" when none).
func (o groupsOut) skippedWarning() string {
	if len(o.skipped) == 0 {
		return ""
	}
	lines := make([]string, len(o.skipped))
	for i, s := range o.skipped {
		lines[i] = fmt.Sprintf("%s_%d (bk_process_id %d) on bk_host_id %d: %s", s.row.Process.Name, s.n, s.row.Process.ID, s.row.Host.ID, s.reason)
	}
	return "These process instances are not in groups; skipped lists them all:\n" + joinReasons(lines, 20, "... and %d more") +
		"\n\nRender what GSEKit renders with Mako or its database by hand (a gse_managed_process of your own), or change the template in CMDB."
}
