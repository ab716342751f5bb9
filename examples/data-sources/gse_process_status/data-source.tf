# proc-test on two hosts (the gse_managed_process page shows every argument),
# and its runtime state on each of them, read again on every plan and refresh.
resource "gse_managed_process" "agent" {
  meta = { namespace = "gse", name = "proc-test" }
  hosts = [
    { ip = "10.0.0.1", bk_cloud_id = 0 },
    { ip = "10.0.0.2", bk_cloud_id = 0 },
  ]
  spec = {
    identity       = { proc_name = "proc-test", setup_path = "/data/gsetest", pid_path = "/data/gsetest/proc-test.pid", user = "root" }
    control        = { start_cmd = "./start.sh", stop_cmd = "./stop.sh" }
    resource       = { cpu = 10.0, mem = 10.0 }
    monitor_policy = { auto_type = 1 } # resident: the agent restarts it when it dies
  }
  running = true
}

data "gse_process_status" "agent" {
  meta = {
    namespace = gse_managed_process.agent.meta.namespace
    name      = gse_managed_process.agent.meta.name
  }
  hosts = gse_managed_process.agent.hosts # by ip or agent_id, whichever each host uses
}

output "agent_status" {
  value = {
    for p in data.gse_process_status.agent.proc_infos : p.key => "${p.status}, pid ${p.pid}, hosted ${p.managed}"
  }
}

check "agent_running" {
  assert {
    condition     = data.gse_process_status.agent.all_running
    error_message = "proc-test is not running on every host."
  }
}
