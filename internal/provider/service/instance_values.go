package service

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
)

// instances' elements as framework objects, converted field by field: the
// framework's reflection (ElementsAs, MapValueFrom) cost a fifth of a
// plan's provider CPU at 10,000 instances.

// instanceFields are instanceModel's attributes but host, each where the
// model keeps it (*types.String, *types.Int64, *types.List or *types.Map).
var instanceFields = []struct {
	name  string
	field func(m *instanceModel) any
}{
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

// instanceOf is an element of instances as a model.
func instanceOf(v attr.Value) instanceModel {
	var m instanceModel
	o, _ := v.(types.Object)
	a := o.Attributes()
	for _, f := range instanceFields {
		switch p := f.field(&m).(type) {
		case *types.String:
			*p, _ = a[f.name].(types.String)
		case *types.Int64:
			*p, _ = a[f.name].(types.Int64)
		case *types.List:
			*p, _ = a[f.name].(types.List)
		case *types.Map:
			*p, _ = a[f.name].(types.Map)
		}
	}
	if h, ok := a["host"].(types.Object); ok && !h.IsNull() && !h.IsUnknown() {
		ha := h.Attributes()
		m.Host = &hosts.Model{}
		m.Host.IP, _ = ha["ip"].(types.String)
		m.Host.BkCloudID, _ = ha["bk_cloud_id"].(types.Int64)
		m.Host.BkSupplierID, _ = ha["bk_supplier_id"].(types.Int64)
		m.Host.AgentID, _ = ha["agent_id"].(types.String)
	}
	return m
}

// instancesOf are the elements of a map of instances, by key.
func instancesOf(m types.Map) map[string]instanceModel {
	els := m.Elements()
	out := make(map[string]instanceModel, len(els))
	for k, v := range els {
		out[k] = instanceOf(v)
	}
	return out
}
