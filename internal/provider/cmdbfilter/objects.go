package cmdbfilter

import "strings"

// The CMDB objects a filter tests, and the fields each has of its own.

// Object is what a filter's rules test: an object of CMDB and its
// fields stored as numbers (value and values on them are sent as JSON
// numbers, as before number existed) and as IPv6 addresses.
type Object struct {
	object  string // "Host", "Process", "Set", "Module"
	param   string // the request's key and API
	example string // fields to name in the field attribute's description
	numeric []string
	ipv6    []string
	own     []string // the fields every such object has (below); any other must be a custom field
}

// Host are list_biz_hosts' host fields.
var Host = Object{
	object: "Host", param: "`host_property_filter` of `list_biz_hosts`",
	example: "CMDB's own, such as `bk_host_name`, `bk_os_type`, `bk_cloud_id`, `bk_host_innerip` or `bk_service_term`, or a custom field of the business",
	numeric: []string{"bk_host_id", "bk_cloud_id", "bk_cpu", "bk_cpu_mhz", "bk_mem", "bk_disk"},
	// CMDB stores them in full form (2001:0db8:0000:...; common.ConvertHostIpv6Val on every write).
	ipv6: []string{"bk_host_innerip_v6", "bk_host_outerip_v6"},
	own:  cmdbHostOwnFields,
}

// Process are list_process_related_info's process fields (metadata.Process).
var Process = Object{
	object: "Process", param: "`process_property_filter` of `list_process_related_info`",
	example: "such as `bk_process_name`, `bk_func_name`, `bk_process_id`, `user`, `priority` or `proc_num`",
	numeric: []string{"bk_process_id", "bk_start_check_secs", "timeout", "priority", "proc_num"},
	own:     cmdbProcessOwnFields,
}

// Set are a set's fields, as list_biz_hosts_topo's set_property_filter
// tests them (In names the request).
var Set = Object{
	object: "Set", param: "`set_property_filter` of `list_biz_hosts_topo`",
	example: "CMDB's own, such as `bk_set_name`, `bk_set_env` (`\"1\"` test, `\"2\"` experience, `\"3\"` production), `bk_service_status` or `set_template_id`, or a custom field of the business",
	numeric: []string{"bk_set_id", "bk_biz_id", "bk_capacity", "set_template_id", "bk_parent_id", "default"},
	own:     cmdbSetOwnFields,
}

// Module are a module's fields, as list_biz_hosts_topo's
// module_property_filter tests them.
var Module = Object{
	object: "Module", param: "`module_property_filter` of `list_biz_hosts_topo`",
	example: "CMDB's own, such as `bk_module_name`, `bk_module_type`, `service_template_id` or `operator`, or a custom field of the business",
	numeric: []string{"bk_module_id", "bk_set_id", "bk_biz_id", "service_category_id", "service_template_id", "set_template_id", "bk_parent_id", "default"},
	own:     cmdbModuleOwnFields,
}

// In is o as the filter of another request: param names its key and API.
func (o Object) In(param string) Object {
	o.param = param
	return o
}

// name is the object's name as CMDB's model knows it (bk_obj_id): "host", "process", "set", "module".
func (o Object) name() string { return strings.ToLower(o.object) }

// cmdbHostOwnFields are the fields of every CMDB host: the host model's
// attributes (TencentBlueKing/bk-cmdb, commit 111e7ac6,
// src/scene_server/admin_server/upgrader/history/v3.0.8/objAttDescData.go
// HostRow, and the upgraders adding bk_cpu_architecture, bk_cloud_inst_id,
// bk_cloud_vendor, bk_cloud_host_status, bk_agent_id, the IPv6 fields,
// bk_addressing, bk_cloud_host_identifier, bk_cloud_region and
// bk_cloud_zone), and the fields every instance document holds
// (bk_host_id, bk_supplier_account, create_time, last_time).
var cmdbHostOwnFields = []string{
	"bk_host_id", "bk_supplier_account", "create_time", "last_time",
	"bk_host_innerip", "bk_host_outerip", "bk_host_innerip_v6", "bk_host_outerip_v6", "bk_agent_id", "bk_addressing",
	"operator", "bk_bak_operator", "bk_asset_id", "bk_sn", "bk_comment", "bk_service_term", "bk_sla", "bk_cloud_id",
	"bk_state_name", "bk_province_name", "bk_isp_name", "bk_host_name", "bk_os_type", "bk_os_name", "bk_os_version",
	"bk_os_bit", "bk_cpu", "bk_cpu_mhz", "bk_cpu_module", "bk_mem", "bk_disk", "bk_mac", "bk_outer_mac", "import_from",
	"bk_cpu_architecture", "bk_cloud_inst_id", "bk_cloud_vendor", "bk_cloud_host_status", "bk_cloud_host_identifier",
	"bk_cloud_region", "bk_cloud_zone", "bk_state",
}

// cmdbProcessOwnFields are the fields of every CMDB process: metadata.Process
// (bk-cmdb src/common/metadata/process.go).
var cmdbProcessOwnFields = []string{
	"bk_process_id", "bk_biz_id", "bk_supplier_account", "create_time", "last_time", "service_instance_id",
	"bk_process_name", "bk_func_name", "work_path", "pid_file", "user", "start_cmd", "stop_cmd", "restart_cmd",
	"reload_cmd", "face_stop_cmd", "bk_start_check_secs", "timeout", "priority", "proc_num", "auto_start",
	"description", "bk_start_param_regex", "bind_info",
}

// cmdbSetOwnFields and cmdbModuleOwnFields are the fields of every CMDB set
// and module: the model's attributes (bk-cmdb, commit 111e7ac6,
// src/scene_server/admin_server/upgrader/history/v3.0.8/objAttDescData.go
// SetRow and ModuleRow; x19.05.16.01/add_module_property.go adding
// service_category_id and service_template_id, y3.6.201909062359 the
// set_template_id of both, y3.10.202204271725 host_apply_enabled) and the
// fields every instance document holds (its id, bk_parent_id, default,
// bk_supplier_account, create_time, last_time).
var (
	cmdbSetOwnFields = []string{
		"bk_set_id", "bk_parent_id", "default", "bk_supplier_account", "create_time", "last_time",
		"bk_biz_id", "bk_set_name", "bk_set_desc", "bk_set_env", "bk_service_status", "description", "bk_capacity", "set_template_id",
	}
	cmdbModuleOwnFields = []string{
		"bk_module_id", "bk_parent_id", "default", "bk_supplier_account", "create_time", "last_time",
		"bk_biz_id", "bk_set_id", "bk_module_name", "bk_module_type", "operator", "bk_bak_operator",
		"service_category_id", "service_template_id", "set_template_id", "host_apply_enabled",
	}
)
