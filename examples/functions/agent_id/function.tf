# The agent id of each host given by cloud area and IP, as GSE 1.0 names it.
locals {
  hosts = [
    { ip = "10.0.0.1", bk_cloud_id = 0 },
    { ip = "2001:DB8:0:0::1", bk_cloud_id = 3 },
  ]
}

output "agent_ids" {
  value = [for h in local.hosts : provider::gse::agent_id(h.bk_cloud_id, h.ip)]
  # ["0:10.0.0.1", "3:2001:db8::1"]
}
