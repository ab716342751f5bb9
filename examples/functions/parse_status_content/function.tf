# A status query; each result's content parsed into its instances.
resource "gse_process_operation" "status" {
  op = "status"
  gse = {
    meta  = { namespace = "gse", name = gse_managed_process.agent.meta.name }
    hosts = [for h in gse_managed_process.agent.hosts : { ip = h.ip, bk_cloud_id = h.bk_cloud_id }]
    spec  = gse_managed_process.agent.spec
  }
}

output "pids" {
  value = { for r in gse_process_operation.status.results : "${r.bk_cloud_id}:${r.ip}" => provider::gse::parse_status_content(r.content).pid }
}
