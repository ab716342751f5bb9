# Reads the runtime state of the process declared in the gse_managed_process
# example, on each of its hosts.
data "gse_process_status" "agent" {
  meta = {
    namespace = gse_managed_process.agent.meta.namespace
    name      = gse_managed_process.agent.meta.name
  }
  hosts = gse_managed_process.agent.hosts # by ip or agent_id, whichever each host uses
}

output "agent_status" {
  value = {
    for p in data.gse_process_status.agent.proc_infos :
    (p.agent_id != null ? p.agent_id : "${p.bk_cloud_id}:${p.ip}") => "${p.status}, pid ${p.pid}, hosted ${p.managed}"
  }
}

check "agent_running" {
  assert {
    condition     = data.gse_process_status.agent.all_running
    error_message = "proc-test is not running on every host."
  }
}
