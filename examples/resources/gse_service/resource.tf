# Every process of business 2 as one service: started in ascending CMDB
# priority, one tier per priority, each tier a quarter of its hosts at a
# time; a batch goes on once its instances have kept one pid for 10 seconds.
data "gse_cmdb_processes" "biz" {
  bk_biz_id      = 2
  with_instances = true
}

resource "gse_service" "biz" {
  processes = data.gse_cmdb_processes.biz.groups
  instances = data.gse_cmdb_processes.biz.instances

  order   = { by = "priority", isolate_by = "set" }
  rollout = { batch_size = "25%", max_fail_percentage = 5 }
  health  = { running_for = "10s", healthy_deadline = "5m" }

  # Changing the release tag restarts every instance, in descending priority.
  restart_triggers = { release = "2026.11" }

  lifecycle {
    # A create whose instances partly failed is kept, not tainted: fail the
    # pipeline here instead.
    postcondition {
      condition     = self.failed_count == 0
      error_message = "Some instances failed: see gse_service.biz.instances."
    }
  }
}
