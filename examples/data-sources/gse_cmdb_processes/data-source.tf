# The processes business 2 defines in CMDB for its modules 1001 and 1002,
# named and specified as GSEKit sends them, each group a gse_managed_process.
data "gse_cmdb_processes" "web" {
  bk_biz_id     = 2
  bk_module_ids = [1001, 1002]
  bk_set_env    = "3" # production sets only
}

resource "gse_managed_process" "web" {
  for_each = data.gse_cmdb_processes.web.groups

  meta    = each.value.meta
  spec    = each.value.spec
  hosts   = each.value.hosts
  running = true
  rollout = { batch_size = "25%", wait_running = true }
}

output "skipped" {
  # Instances CMDB defines that are not managed here, and why.
  value = [for s in data.gse_cmdb_processes.web.skipped : "${s.bk_process_name}_${s.local_inst_id} on host ${s.bk_host_id}: ${s.reason}"]
}
