# A status answer's content, as GSE sends it (a JSON document, here encoded
# with jsonencode), and what the function makes of it.
locals {
  status_content = jsonencode({
    process = [{
      procname = "proc-test"
      instance = [
        { pid = 4321, isAuto = true, version = "1.2.0", cpuUsage = 0.5 },
        { pid = -1, isAuto = "1", version = "" }, # the agent spells flags as it likes
      ]
    }]
  })
}

output "parsed_status" {
  value = provider::gse::parse_status_content(local.status_content)
  # {
  #   instances = [
  #     { pid = 4321, hosted = true, version = "1.2.0" },
  #     { pid = -1, hosted = true, version = "" },
  #   ]
  #   running = true
  #   pid     = 4321
  #   hosted  = true
  #   version = "1.2.0"
  # }
}

# In practice, the content comes from a status query: each host's pid.
resource "gse_process_operation" "status" {
  op = "status"
  gse = {
    meta  = { namespace = "gse", name = gse_managed_process.agent.meta.name }
    hosts = gse_managed_process.agent.hosts
    spec  = gse_managed_process.agent.spec
  }
}

output "pids" {
  value = { for r in gse_process_operation.status.results : (r.agent_id != null ? r.agent_id : "${r.bk_cloud_id}:${r.ip}") => provider::gse::parse_status_content(r.content).pid }
}
