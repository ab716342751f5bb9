package cmdb

// withInstancesDesc is the description of gse_cmdb_processes.with_instances.
const withInstancesDesc = "Fill `instances` (null when unset or false), and give each host of `groups` the CMDB facts of the instance on it " +
	"(`bk_host_id`, `bk_set_id`, `bk_module_id`, `bind_info`: `gse_service` takes them with `processes`, for `order.isolate_by` and `health.tcp`). Off by default: Terraform decodes and stores every element in every plan, " +
	"whether the configuration reads them or not, and a business of 2,000 hosts running 5 processes of 2 instances has 20,000, " +
	"which make its plan take about twice as long. No further request is made either way."

// instancesDesc is the description of gse_cmdb_processes.instances.
const instancesDesc = "With `with_instances = true`, one element per process instance and host in `groups` (never one of `skipped`), keyed `{namespace}/{name}@{host}`, `{host}` as `host_status` keys the host: " +
	"its agent id where the group's `hosts` address it by one (through `gateway_url`), else `{bk_cloud_id}:{ip}` (`GSEKIT_BIZ_2/nginx_1@0:10.0.0.1`). " +
	"Each holds `group` (its key in `groups`), `name`, `host` (its element of the group's `hosts`), `bk_host_id`, `bk_process_id`, `bk_set_id`, `bk_module_id`, " +
	"`service_instance_id`, `local_inst_id`, `priority`, `bind_info` (the process's CMDB `bind_info` rows: `ip`, `port` (a port or a range), `protocol` " +
	"(`TCP`, `UDP`, `TCP6` or `UDP6`), `enable`, `template_row_id`) and `context`: GSEKit's render context of a config template for this instance, " +
	"so that `templatefile(\"nginx.conf.tpl\", each.value.context)` renders a GSEKit template that uses only `${name}`, `${name + 1}` and " +
	"`${this.cc_host.attrib[\"InnerIP\"]}` as GSEKit does. Its names: `LocalInstID`, `LocalInstID0` and `bk_process_id` (numbers); `Scope`, `FuncID`, " +
	"`FuncName`, `ProcName`, `bk_process_name`, `WorkPath` and `PidFile` (CMDB's fields unrendered, as GSEKit passes them), `bk_set_name` and `SetName`, " +
	"`bk_set_env` and `SetEnviType`, `bk_module_name` and `ModuleName`, `bk_host_innerip` and `InnerIP` (every IPv4 address, comma-joined), " +
	"`bk_cloud_id` (strings, as GSEKit renders them); `this.cc_set.attrib`, `this.cc_module.attrib` and `this.cc_host.attrib` hold the same set, " +
	"module and host attributes under both names (`this.attrib` is empty, as in GSEKit). Not in it, so that `templatefile` fails naming them rather " +
	"than render something else: `InstID` and `InstID0` (numbered in GSEKit's database), `cc` (the whole topology), and set, module and host " +
	"fields that neither `list_process_related_info` nor `list_biz_hosts` return (the business's custom fields, `bk_service_status`, `bk_module_type`, " +
	"`bk_host_name`, `operator`: GSEKit reads them with `search_object_attribute` and `find_biz_tree_brief_info`, four more requests a read). " +
	"Mako code (`% if`, `<% %>`) does not render with `templatefile`, and a GSEKit template's literal `%{` must be written `%%{` there."
