package cmdb

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/gsekit"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
)

// The types of instances: an element per instance and host, its context
// an object (not a map) so that templatefile takes both its strings and
// numbers and `this`, whose attributes templates read as ${this.cc_host.attrib["InnerIP"]}.
var (
	attribType    = types.ObjectType{AttrTypes: map[string]attr.Type{"attrib": types.MapType{ElemType: types.StringType}}}
	thisType      = types.ObjectType{AttrTypes: map[string]attr.Type{"attrib": types.MapType{ElemType: types.StringType}, "cc_set": attribType, "cc_module": attribType, "cc_host": attribType}}
	contextType   = types.ObjectType{AttrTypes: contextAttrTypes()}
	bindInfoType  = types.ObjectType{AttrTypes: map[string]attr.Type{"enable": types.BoolType, "ip": types.StringType, "port": types.StringType, "protocol": types.StringType, "template_row_id": types.Int64Type}}
	instancesType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"group": types.StringType, "name": types.StringType, "host": hosts.ObjectType, "bk_host_id": types.Int64Type, "bk_process_id": types.Int64Type,
		"bk_set_id": types.Int64Type, "bk_module_id": types.Int64Type, "service_instance_id": types.Int64Type, "local_inst_id": types.Int64Type,
		"priority": types.Int64Type, "bind_info": types.ListType{ElemType: bindInfoType}, "context": contextType,
	}}
)

func contextAttrTypes() map[string]attr.Type {
	out := map[string]attr.Type{"this": thisType}
	for _, n := range gsekit.ConfigStringNames {
		out[n] = types.StringType
	}
	for _, n := range gsekit.ConfigNumberNames {
		out[n] = types.Int64Type
	}
	return out
}

// protocols are CMDB's protocol codes by name (bk-cmdb
// src/common/metadata/process.go ProtocolType.String).
var protocols = map[string]string{"1": "TCP", "2": "UDP", "3": "TCP6", "4": "UDP6"}

// instanceValues are o's instances by key, {namespace}/{name}@{host}, host
// as host_status keys it (hostKey); groupOf holds each instance's group
// key. What every instance of a process, host or service instance shares
// is made once.
type instanceValues struct {
	gateway   bool
	facts     bool // with_instances: groups' hosts carry their instance's CMDB facts
	groupOf   map[*gsekit.Instance]string
	hostObjs  map[int64]attr.Value
	bareHosts map[int64]attr.Value // groups' host elements without facts, by host
	this      map[int64]attr.Value // by service instance: its set, module and host
	binds     map[*gse.ProcessRow]attr.Value
}

func (iv *instanceValues) all(o gsekit.Grouping) map[string]attr.Value {
	out := make(map[string]attr.Value, len(o.Instances))
	for _, in := range o.Instances {
		r := in.Row
		out[o.Namespace+"/"+in.Name+"@"+hostKey(in.Host.CMDB, in.Host.IP, iv.gateway)] = types.ObjectValueMust(instancesType.AttrTypes, map[string]attr.Value{
			"group": types.StringValue(iv.groupOf[in]), "name": types.StringValue(in.Name), "host": cachedHostObject(iv.hostObjs, in.Host, iv.gateway),
			"bk_host_id": types.Int64Value(r.Host.ID), "bk_process_id": types.Int64Value(r.Process.ID), "bk_set_id": types.Int64Value(r.Set.ID),
			"bk_module_id": types.Int64Value(r.Module.ID), "service_instance_id": types.Int64Value(r.ServiceInstance.ID),
			"local_inst_id": types.Int64Value(in.N), "priority": types.Int64Value(in.Priority), "bind_info": iv.bindInfo(r), "context": iv.context(in),
		})
	}
	return out
}

// context is in's GSEKit render context (gsekit.NewConfigContext).
func (iv *instanceValues) context(in *gsekit.Instance) attr.Value {
	c := gsekit.NewConfigContext(in)
	vals := make(map[string]attr.Value, len(c.Strings)+len(c.Numbers)+1)
	for k, v := range c.Strings {
		vals[k] = types.StringValue(v)
	}
	for k, v := range c.Numbers {
		vals[k] = types.Int64Value(v)
	}
	this, ok := iv.this[in.Row.ServiceInstance.ID]
	if !ok {
		this = types.ObjectValueMust(thisType.AttrTypes, map[string]attr.Value{
			"attrib":    types.MapValueMust(types.StringType, map[string]attr.Value{}),
			"cc_set":    attribValue(gsekit.SetAttrib(in.Row)),
			"cc_module": attribValue(gsekit.ModuleAttrib(in.Row)),
			"cc_host":   attribValue(gsekit.HostAttrib(in.Host.CMDB)),
		})
		iv.this[in.Row.ServiceInstance.ID] = this
	}
	vals["this"] = this
	return types.ObjectValueMust(contextType.AttrTypes, vals)
}

func attribValue(m map[string]string) attr.Value {
	vals := make(map[string]attr.Value, len(m))
	for k, v := range m {
		vals[k] = types.StringValue(v)
	}
	return types.ObjectValueMust(attribType.AttrTypes, map[string]attr.Value{"attrib": types.MapValueMust(types.StringType, vals)})
}

// bindInfo is r's bind_info, protocol by name; a field CMDB leaves null is
// null.
func (iv *instanceValues) bindInfo(r *gse.ProcessRow) attr.Value {
	if v, ok := iv.binds[r]; ok {
		return v
	}
	rows := make([]attr.Value, len(r.Process.BindInfo))
	for i, b := range r.Process.BindInfo {
		protocol := types.StringPointerValue(b.Protocol)
		if b.Protocol != nil && protocols[*b.Protocol] != "" {
			protocol = types.StringValue(protocols[*b.Protocol])
		}
		rows[i] = types.ObjectValueMust(bindInfoType.AttrTypes, map[string]attr.Value{
			"enable": types.BoolPointerValue(b.Enable), "ip": types.StringPointerValue(b.IP), "port": types.StringPointerValue(b.Port),
			"protocol": protocol, "template_row_id": types.Int64Value(b.TemplateRowID),
		})
	}
	v := types.ListValueMust(bindInfoType, rows)
	iv.binds[r] = v
	return v
}
