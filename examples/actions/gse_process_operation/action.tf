# Terraform 1.14+: web, reloaded after every in-place update of its
# gse_managed_process, and restarted on demand with
#   terraform apply -invoke=action.gse_process_operation.restart_web
# one host at a time, each waited for until it runs again.
resource "gse_managed_process" "web" {
  meta  = { namespace = "gse", name = "web" }
  hosts = [{ ip = "10.0.0.1", bk_cloud_id = 0 }]
  spec = {
    identity       = { proc_name = "web", setup_path = "/data/web", pid_path = "/data/web/web.pid", user = "root" }
    control        = { start_cmd = "./start.sh", stop_cmd = "./stop.sh", reload_cmd = "./reload.sh" }
    resource       = { cpu = 10.0, mem = 10.0 }
    monitor_policy = { auto_type = 1 }
  }
  running = true

  # Reload it after every in-place update (a new spec or labels).
  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.gse_process_operation.reload_web]
    }
  }
}

action "gse_process_operation" "reload_web" {
  config {
    op = "reload"
    gse = {
      meta  = { namespace = "gse", name = "web" }
      hosts = [{ ip = "10.0.0.1", bk_cloud_id = 0 }]
      spec  = gse_managed_process.web.spec
    }
  }
}

action "gse_process_operation" "restart_web" {
  config {
    op = "restart"
    gse = {
      meta  = { namespace = "gse", name = gse_managed_process.web.meta.name, labels = gse_managed_process.web.meta.labels }
      hosts = gse_managed_process.web.hosts # by ip or agent_id, whichever each host uses
      spec  = gse_managed_process.web.spec
    }
    rollout = { batch_size = 1, wait_running = true, pause = "10s" }
    timeout = "15m"
  }
}
