# The processes business 2 defines in CMDB for its modules 1001 and 1002,
# named and specified as GSEKit sends them, run as one service in CMDB
# priority order.
data "gse_cmdb_processes" "web" {
  bk_biz_id      = 2
  bk_module_ids  = [1001, 1002]
  bk_set_env     = "3" # production sets only
  with_instances = true
}

resource "gse_service" "web" {
  processes = data.gse_cmdb_processes.web.groups
  instances = data.gse_cmdb_processes.web.instances
  rollout   = { batch_size = "25%" }
}

output "skipped" {
  # Instances CMDB defines that are not managed here, and why.
  value = [for s in data.gse_cmdb_processes.web.skipped : "${s.bk_process_name}_${s.local_inst_id} on host ${s.bk_host_id}: ${s.reason}"]
}
