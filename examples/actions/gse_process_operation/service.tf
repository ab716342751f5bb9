# Restart a whole service as its release would, without a change of its
# configuration: its canary host first, then every tier (in descending CMDB
# priority for a restart) in its batches, each behind its health gate:
#   terraform apply -invoke=action.gse_process_operation.restart_biz
data "gse_cmdb_processes" "biz" {
  bk_biz_id      = 2
  with_instances = true
}

resource "gse_service" "biz" {
  bk_biz_id = 2
  processes = data.gse_cmdb_processes.biz.groups
  rollout   = { batch_size = "25%", canary = { size = 1, bake = "1m" } }
  health    = { running_for = "10s" }
}

action "gse_process_operation" "restart_biz" {
  config {
    op      = "restart"
    service = gse_service.biz
  }
}
