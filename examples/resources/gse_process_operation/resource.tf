# proc-test on two hosts (the gse_managed_process page shows every argument).
resource "gse_managed_process" "agent" {
  meta = { namespace = "gse", name = "proc-test" }
  hosts = [
    { ip = "10.0.0.1", bk_cloud_id = 0 },
    { ip = "10.0.0.2", bk_cloud_id = 0 },
  ]
  spec = {
    identity       = { proc_name = "proc-test", setup_path = "/data/gsetest", pid_path = "/data/gsetest/proc-test.pid", user = "root" }
    control        = { start_cmd = "./start.sh", stop_cmd = "./stop.sh", reload_cmd = "./reload.sh" }
    resource       = { cpu = 10.0, mem = 10.0 }
    monitor_policy = { auto_type = 1 }
  }
  running = true
}

# Reload it whenever its configuration changes.
resource "gse_process_operation" "reload_agent" {
  op       = "reload"
  triggers = { config_md5 = "5d41402abc4b2a76b9719d911017c592" }

  gse = {
    meta  = { namespace = "gse", name = gse_managed_process.agent.meta.name, labels = gse_managed_process.agent.meta.labels }
    hosts = gse_managed_process.agent.hosts # by ip or agent_id, whichever each host uses
    spec  = gse_managed_process.agent.spec
  }
}

# Restart a Windows process through JOB's operate_proc, chosen by cmd_shell_ext.
resource "gse_process_operation" "restart_beat" {
  op       = "restart"
  triggers = { release = "2026.11.21" }

  job = {
    bk_biz_id = 2
    process_infos = [{
      setup_path    = "C:\\gse\\plugins\\bin"
      proc_name     = "bkmonitorbeat"
      pid_path      = "C:\\gse\\plugins\\run\\bkmonitorbeat.pid"
      cmd_shell_ext = "bat"
      account       = "Administrator"
      ip_list       = [{ bk_cloud_id = 0, ip = "10.0.1.5" }]
    }]
  }
}

output "reload_results" {
  value = [for r in gse_process_operation.reload_agent.results : "${r.ip}: ${r.error_code} ${r.error_msg}"]
}
