package cmdb

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/gsekit"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

// gsekitHosts are the rows' hosts (found, by id) as GSEKit's rules take
// them: each with its address in this mode, or why it has none (hostAddress).
func gsekitHosts(found map[int64]gse.CMDBHost, gateway bool) map[int64]*gsekit.Host {
	out := make(map[int64]*gsekit.Host, len(found))
	for id, h := range found {
		ip, reason := hostAddress(h, gateway)
		out[id] = &gsekit.Host{CMDB: h, IP: ip, Unusable: reason}
	}
	return out
}

// specAttrTypes are the attribute types of gse_managed_process's spec.
var specAttrTypes = func() map[string]attr.Type {
	out := map[string]attr.Type{}
	for name, a := range spec.TypedAttribute.Attributes {
		out[name] = a.GetType()
	}
	return out
}()

// processesValues sets m's outputs from o; gateway says how hosts are
// addressed (hostObject).
func processesValues(ctx context.Context, o gsekit.Grouping, gateway bool, m *cmdbProcessesModel) diag.Diagnostics {
	iv := instanceValues{gateway: gateway, facts: m.WithInstances.ValueBool(), groupOf: map[*gsekit.Instance]string{},
		hostObjs: map[int64]attr.Value{}, bareHosts: map[int64]attr.Value{}, this: map[int64]attr.Value{}, binds: map[*gse.ProcessRow]attr.Value{}}
	groups, diags := iv.groups(ctx, o)
	var err error
	if m.Groups, err = packOutput[groupElements](groups); err != nil {
		diags.AddError("Could not encode groups", err.Error())
	}
	m.Instances = instancesValue{types.StringNull()}
	if m.WithInstances.ValueBool() {
		v, err := packOutput[instanceElements](iv.all(o))
		if err != nil {
			diags.AddError("Could not encode instances", err.Error())
		}
		m.Instances = v
	}
	procs := make([]attr.Value, len(o.Instances))
	for i, in := range o.Instances {
		procs[i] = processValue(o.Namespace, iv.groupOf[in], in)
	}
	m.Processes = types.ListValueMust(processType, procs)
	skips := make([]attr.Value, len(o.Skipped))
	for i, s := range o.Skipped {
		skips[i] = types.ObjectValueMust(skippedType.AttrTypes, map[string]attr.Value{
			"bk_process_id": types.Int64Value(s.Row.Process.ID), "bk_process_name": types.StringValue(s.Row.Process.Name),
			"local_inst_id": types.Int64Value(s.N), "bk_host_id": types.Int64Value(s.Row.Host.ID), "reason": types.StringValue(s.Reason),
		})
	}
	m.Skipped = types.ListValueMust(skippedType, skips)
	return diags
}

// groups are o's groups by key; it notes the key of each instance's group.
func (iv *instanceValues) groups(ctx context.Context, o gsekit.Grouping) (map[string]attr.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	groups := make(map[string]attr.Value, len(o.Groups))
	for _, g := range o.Groups {
		first := g.Instances[0]
		sv, d := types.ObjectValueFrom(ctx, specAttrTypes, spec.Flatten(first.Spec))
		diags.Append(d...)
		hostList := make([]attr.Value, 0, len(g.Instances))
		seen := map[int64]bool{}
		for _, in := range g.Instances {
			iv.groupOf[in] = g.Key
			if id := in.Row.Host.ID; !seen[id] {
				seen[id] = true
				hostList = append(hostList, iv.groupHost(in))
			}
		}
		groups[g.Key] = types.ObjectValueMust(groupType.AttrTypes, map[string]attr.Value{
			"meta": types.ObjectValueMust(metaType.AttrTypes, map[string]attr.Value{
				"namespace": types.StringValue(o.Namespace), "name": types.StringValue(first.Name), "labels": types.MapNull(types.StringType)}),
			"spec":     sv,
			"hosts":    types.ListValueMust(groupHostType, hostList),
			"priority": types.Int64Value(first.Priority),
		})
	}
	return groups, diags
}

// groupHost is in's element of its group's hosts: its host as
// gse_managed_process.hosts takes it and, with instances, the CMDB facts
// gse_service orders and checks by (null without, and the element made once
// per host: they cost a fifth more plan time that configurations of
// gse_managed_process would pay for nothing).
func (iv *instanceValues) groupHost(in *gsekit.Instance) attr.Value {
	if v, ok := iv.bareHosts[in.Host.CMDB.BkHostID]; ok && !iv.facts {
		return v
	}
	h, _ := cachedHostObject(iv.hostObjs, in.Host, iv.gateway).(types.Object)
	el := maps.Clone(h.Attributes())
	el["bk_host_id"], el["bk_set_id"], el["bk_module_id"] = types.Int64Null(), types.Int64Null(), types.Int64Null()
	el["bind_info"] = types.ListNull(bindInfoType)
	if !iv.facts {
		v := types.ObjectValueMust(groupHostType.AttrTypes, el)
		iv.bareHosts[in.Host.CMDB.BkHostID] = v
		return v
	}
	r := in.Row
	el["bk_host_id"], el["bk_set_id"], el["bk_module_id"] = types.Int64Value(r.Host.ID), types.Int64Value(r.Set.ID), types.Int64Value(r.Module.ID)
	el["bind_info"] = iv.bindInfo(r)
	return types.ObjectValueMust(groupHostType.AttrTypes, el)
}

// cachedHostObject is h's hostObject, made once into objects.
func cachedHostObject(objects map[int64]attr.Value, h *gsekit.Host, gateway bool) attr.Value {
	obj, ok := objects[h.CMDB.BkHostID]
	if !ok {
		obj = hostObject(h.CMDB, h.IP, gateway)
		objects[h.CMDB.BkHostID] = obj
	}
	return obj
}

// processValue is an element of processes: in, in group key of namespace ns.
func processValue(ns, key string, in *gsekit.Instance) attr.Value {
	r := in.Row
	return types.ObjectValueMust(processType.AttrTypes, map[string]attr.Value{
		"group": types.StringValue(key), "namespace": types.StringValue(ns), "name": types.StringValue(in.Name),
		"local_inst_id": types.Int64Value(in.N), "bk_process_id": types.Int64Value(r.Process.ID), "bk_process_name": types.StringValue(r.Process.Name),
		"bk_func_name": types.StringValue(r.Process.FuncName), "priority": types.Int64Value(in.Priority), "bk_host_id": types.Int64Value(r.Host.ID),
		"bk_set_id": types.Int64Value(r.Set.ID), "bk_set_name": types.StringValue(r.Set.Name), "bk_module_id": types.Int64Value(r.Module.ID),
		"bk_module_name": types.StringValue(r.Module.Name), "service_instance_id": types.Int64Value(r.ServiceInstance.ID),
		"process_template_id": types.Int64Value(r.ProcessTemplate.ID),
	})
}

// skippedAdvice says what a user can do about each kind of skipped instance.
func skippedAdvice(kind gsekit.SkipKind, gateway bool) string {
	switch kind {
	case gsekit.SkipHost:
		return addressAdvice(gateway)
	case gsekit.SkipRender:
		return "Render what GSEKit renders with Mako or its database by hand (a gse_managed_process of your own), or change the template in CMDB."
	case gsekit.SkipDuplicate:
		return "Give one of the processes another alias (bk_process_name) in CMDB, or take the host out of one of its modules: " +
			"GSEKit refuses to sync a business holding such processes."
	}
	return "Correct the field in CMDB (GSEKit cannot operate such a process either), or declare the process with a gse_managed_process of your own."
}

// skippedWarning names the instances left out, and what to do about each
// kind of cause among them ("" when none).
func skippedWarning(skipped []gsekit.Skipped, gateway bool) string {
	if len(skipped) == 0 {
		return ""
	}
	lines := make([]string, len(skipped))
	kinds := map[gsekit.SkipKind]bool{}
	for i, s := range skipped {
		lines[i] = fmt.Sprintf("%s (bk_process_id %d) on bk_host_id %d: %s", gsekit.InstanceName(s.Row.Process.Name, s.N), s.Row.Process.ID, s.Row.Host.ID, s.Reason)
		kinds[s.Kind] = true
	}
	var advice []string
	for _, k := range []gsekit.SkipKind{gsekit.SkipHost, gsekit.SkipRender, gsekit.SkipField, gsekit.SkipDuplicate} {
		if kinds[k] {
			advice = append(advice, skippedAdvice(k, gateway))
		}
	}
	return "These process instances are not in groups; skipped lists them all:\n" + joinReasons(lines, 20, "... and %d more") +
		"\n\n" + strings.Join(advice, "\n")
}
