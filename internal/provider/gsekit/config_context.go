package gsekit

import (
	"fmt"
	"strconv"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// GSEKit renders a config template with Mako over the context of one
// process instance (bk-process-config-manager
// 3ba5f7d8cc91ef1ae58e63365c7f208caf1a1bca,
// apps/gsekit/configfile/handlers/config_version.py
// ConfigVersionHandler.get_process_context): names of the instance and its
// process from list_process_related_info, `this`, whose cc_set, cc_module
// and cc_host hold in `attrib` the attributes of the instance's set, module
// and host (read with find_biz_tree_brief_info, as strings: "%s" % value,
// each under its CMDB name and its CMDB 1.0 name,
// apps/gsekit/cmdb/handlers/cmdb.py set_attr_to_xml_element and
// map_cc3_field_to_cc1), and the same attributes again as top-level names
// (the loop over biz_global_variables: the business's custom fields and
// BK_SYSTEM_COMMON_ATTRIBUTE). ConfigContext holds what
// list_process_related_info and list_biz_hosts give; what GSEKit reads
// beyond them is left out (see the data source's description):
// InstID and InstID0 (GSEKit's database), cc (the whole topology),
// bk_service_status, bk_module_type, bk_host_name, operator and custom
// fields (find_biz_tree_brief_info and search_object_attribute).

// ConfigContext is GSEKit's render context of a config template for one
// instance: the top-level names as strings or numbers (GSEKit's ints), and
// this.cc_set, this.cc_module and this.cc_host's attrib.
type ConfigContext struct {
	Strings map[string]string
	Numbers map[string]int64
}

// ConfigStringNames and ConfigNumberNames are the top-level names of every
// ConfigContext. bk_cloud_id is a string: GSEKit overwrites the row's int
// with cc_host's attribute.
var (
	ConfigStringNames = []string{
		"Scope", "FuncID", "FuncName", "ProcName", "WorkPath", "PidFile", "bk_process_name",
		"bk_set_name", "SetName", "bk_set_env", "SetEnviType", "bk_module_name", "ModuleName",
		"bk_host_innerip", "InnerIP", "bk_cloud_id",
	}
	ConfigNumberNames = []string{"LocalInstID", "LocalInstID0", "bk_process_id"}
)

// NewConfigContext is in's render context.
func NewConfigContext(in *Instance) ConfigContext {
	r, p := in.Row, in.Row.Process
	strs := map[string]string{
		"Scope":  fmt.Sprintf("%s.%s.%s.%s.%d", r.Set.Name, r.Module.Name, r.ServiceInstance.Name, p.Name, p.ID),
		"FuncID": p.Name, "FuncName": p.FuncName, "ProcName": p.Name, "bk_process_name": p.Name,
		"WorkPath": deref(p.WorkPath), "PidFile": deref(p.PidFile),
	}
	for _, attrib := range []map[string]string{SetAttrib(r), ModuleAttrib(r), HostAttrib(in.Host.CMDB)} {
		for k, v := range attrib {
			strs[k] = v
		}
	}
	return ConfigContext{Strings: strs, Numbers: map[string]int64{"LocalInstID": in.N, "LocalInstID0": in.N - 1, "bk_process_id": p.ID}}
}

// SetAttrib is this.cc_set.attrib of r's set: bk_set_name and bk_set_env,
// each also by its CMDB 1.0 name.
func SetAttrib(r *gse.ProcessRow) map[string]string {
	return map[string]string{"bk_set_name": r.Set.Name, "SetName": r.Set.Name, "bk_set_env": r.Set.Env, "SetEnviType": r.Set.Env}
}

// ModuleAttrib is this.cc_module.attrib of r's module: bk_module_name, also
// as ModuleName.
func ModuleAttrib(r *gse.ProcessRow) map[string]string {
	return map[string]string{"bk_module_name": r.Module.Name, "ModuleName": r.Module.Name}
}

// HostAttrib is this.cc_host.attrib of h: bk_host_innerip (every IPv4
// address, as CMDB joins them), also as InnerIP, and bk_cloud_id.
func HostAttrib(h gse.CMDBHost) map[string]string {
	return map[string]string{"bk_host_innerip": h.InnerIP, "InnerIP": h.InnerIP, "bk_cloud_id": strconv.FormatInt(h.BkCloudID, 10)}
}
