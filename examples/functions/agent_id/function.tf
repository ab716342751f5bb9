# The agent id of each host of a process, such as "0:10.0.0.1".
output "agent_ids" {
  value = [for h in gse_managed_process.agent.hosts : provider::gse::agent_id(h.bk_cloud_id, h.ip)]
}
