package service

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
)

// The elements of the service's large maps and lists (instances, processes'
// hosts, config_files) as framework objects, converted field by field: the
// framework's reflection (ElementsAs, MapValueFrom) cost a fifth of a
// plan's provider CPU at 10,000 instances, and compiles a regular
// expression per struct field of every element it decodes
// (terraform-plugin-framework v1.19.0 internal/reflect isValidFieldName,
// hashicorp/terraform-plugin-framework#725): a quarter of the memory a
// release of 10,000 instances allocated.

// modelField is an attribute of a model M and where the model keeps it
// (*types.String, *types.Int64, *types.Bool, *types.List or *types.Map).
type modelField[M any] struct {
	name  string
	field func(m *M) any
}

// setFields sets the fields of m from an object's attributes a.
func setFields[M any](m *M, a map[string]attr.Value, fields []modelField[M]) {
	for _, f := range fields {
		switch p := f.field(m).(type) {
		case *types.String:
			*p, _ = a[f.name].(types.String)
		case *types.Int64:
			*p, _ = a[f.name].(types.Int64)
		case *types.Bool:
			*p, _ = a[f.name].(types.Bool)
		case *types.List:
			*p, _ = a[f.name].(types.List)
		case *types.Map:
			*p, _ = a[f.name].(types.Map)
		}
	}
}

// instanceFields are instanceModel's attributes but host.
var instanceFields = []modelField[instanceModel]{
	{"group", func(m *instanceModel) any { return &m.Group }}, {"name", func(m *instanceModel) any { return &m.Name }},
	{"bk_host_id", func(m *instanceModel) any { return &m.BkHostID }}, {"bk_process_id", func(m *instanceModel) any { return &m.BkProcessID }},
	{"bk_set_id", func(m *instanceModel) any { return &m.BkSetID }}, {"bk_module_id", func(m *instanceModel) any { return &m.BkModuleID }},
	{"service_instance_id", func(m *instanceModel) any { return &m.ServiceInstanceID }},
	{"local_inst_id", func(m *instanceModel) any { return &m.LocalInstID }}, {"priority", func(m *instanceModel) any { return &m.Priority }},
	{"bind_info", func(m *instanceModel) any { return &m.BindInfo }}, {"tier", func(m *instanceModel) any { return &m.Tier }},
	{"batch", func(m *instanceModel) any { return &m.Batch }}, {"action", func(m *instanceModel) any { return &m.Action }},
	{"status", func(m *instanceModel) any { return &m.Status }}, {"code", func(m *instanceModel) any { return &m.Code }},
	{"message", func(m *instanceModel) any { return &m.Message }}, {"pid", func(m *instanceModel) any { return &m.PID }},
	{"config", func(m *instanceModel) any { return &m.Config }},
}

// The attribute types of an instance and of its host.
var instanceAttrTypes, hostAttrTypes = func() (map[string]attr.Type, map[string]attr.Type) {
	o, _ := instanceType.(types.ObjectType)
	h, _ := o.AttrTypes["host"].(types.ObjectType)
	return o.AttrTypes, h.AttrTypes
}()

// object is m as an element of instances.
func (m instanceModel) object() attr.Value {
	vals := make(map[string]attr.Value, len(instanceFields)+1)
	for _, f := range instanceFields {
		switch p := f.field(&m).(type) {
		case *types.String:
			vals[f.name] = *p
		case *types.Int64:
			vals[f.name] = *p
		case *types.List:
			vals[f.name] = *p
		case *types.Map:
			vals[f.name] = *p
		}
	}
	vals["host"] = types.ObjectNull(hostAttrTypes)
	if h := m.Host; h != nil {
		vals["host"] = types.ObjectValueMust(hostAttrTypes, map[string]attr.Value{"ip": h.IP, "bk_cloud_id": h.BkCloudID, "bk_supplier_id": h.BkSupplierID, "agent_id": h.AgentID})
	}
	return types.ObjectValueMust(instanceAttrTypes, vals)
}

// hostOf is a host object's attributes a as a model.
func hostOf(a map[string]attr.Value) hosts.Model {
	var h hosts.Model
	h.IP, _ = a["ip"].(types.String)
	h.BkCloudID, _ = a["bk_cloud_id"].(types.Int64)
	h.BkSupplierID, _ = a["bk_supplier_id"].(types.Int64)
	h.AgentID, _ = a["agent_id"].(types.String)
	return h
}

// instanceOf is an element of instances as a model.
func instanceOf(v attr.Value) instanceModel {
	var m instanceModel
	o, _ := v.(types.Object)
	a := o.Attributes() // a copy of the object's map: taken once
	setFields(&m, a, instanceFields)
	if h, ok := a["host"].(types.Object); ok && !h.IsNull() && !h.IsUnknown() {
		hm := hostOf(h.Attributes())
		m.Host = &hm
	}
	return m
}

// instancesOf are the elements of a map of instances, by key.
func instancesOf(m types.Map) map[string]instanceModel {
	return elementsOf(m, instanceOf)
}

// elementsOf are the elements of m, each as of makes it, by key.
func elementsOf[M any](m types.Map, of func(attr.Value) M) map[string]M {
	els := m.Elements()
	out := make(map[string]M, len(els))
	for k, v := range els {
		out[k] = of(v)
	}
	return out
}

// groupHostFields are groupHost's attributes but the host's own.
var groupHostFields = []modelField[groupHost]{
	{"bk_host_id", func(m *groupHost) any { return &m.BkHostID }}, {"bk_set_id", func(m *groupHost) any { return &m.BkSetID }},
	{"bk_module_id", func(m *groupHost) any { return &m.BkModuleID }}, {"bind_info", func(m *groupHost) any { return &m.BindInfo }},
}

// hostsOf are the elements of a group's hosts as models.
func (g groupModel) hostsOf() []groupHost {
	els := g.Hosts.Elements()
	out := make([]groupHost, len(els))
	for i, v := range els {
		o, _ := v.(types.Object)
		a := o.Attributes()
		out[i].Model = hostOf(a)
		setFields(&out[i], a, groupHostFields)
	}
	return out
}

// configFileFields are configFileModel's attributes.
var configFileFields = []modelField[configFileModel]{
	{"instance", func(m *configFileModel) any { return &m.Instance }}, {"group", func(m *configFileModel) any { return &m.Group }},
	{"path", func(m *configFileModel) any { return &m.Path }}, {"file_name", func(m *configFileModel) any { return &m.FileName }},
	{"account", func(m *configFileModel) any { return &m.Account }}, {"content", func(m *configFileModel) any { return &m.Content }},
	{"content_wo", func(m *configFileModel) any { return &m.ContentWO }}, {"content_wo_version", func(m *configFileModel) any { return &m.ContentWOVersion }},
	{"on_change", func(m *configFileModel) any { return &m.OnChange }}, {"verify", func(m *configFileModel) any { return &m.Verify }},
}

// configFileOf is an element of config_files as a model.
func configFileOf(v attr.Value) configFileModel {
	var m configFileModel
	o, _ := v.(types.Object)
	setFields(&m, o.Attributes(), configFileFields)
	return m
}
