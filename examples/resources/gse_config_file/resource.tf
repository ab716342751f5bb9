variable "nginx_workers" {
  type    = number
  default = 4
}

# nginx's configuration pushed to two hosts with JOB, and nginx reloaded on
# them one host at a time, in the same apply, whenever the apply pushes the
# file: a new content, or a file edited by hand that verify found and the
# apply wrote back.
resource "gse_config_file" "nginx" {
  bk_scope_type = "biz"
  bk_scope_id   = "2"
  hosts = [
    { ip = "10.0.0.1", bk_cloud_id = 0 },
    { ip = "10.0.0.2", bk_cloud_id = 0 },
  ]
  path      = "/data/nginx/conf"
  file_name = "nginx.conf"
  account   = "root" # a JOB execution account of the business
  content   = <<-EOT
    worker_processes ${var.nginx_workers};
    events { worker_connections 1024; }
  EOT
  verify    = true # read the files at every plan (one JOB script): edits by hand show as drift
}

resource "gse_managed_process" "nginx" {
  meta  = { namespace = "web", name = "nginx" }
  hosts = gse_config_file.nginx.hosts
  spec = {
    identity       = { proc_name = "nginx", setup_path = "/data/nginx", pid_path = "/data/nginx/run/nginx.pid", user = "root" }
    control        = { start_cmd = "./sbin/nginx", stop_cmd = "./sbin/nginx -s stop", reload_cmd = "./sbin/nginx -s reload" }
    resource       = { cpu = 0, mem = 0 }
    monitor_policy = { auto_type = 1 }
  }
  running         = true
  reload_triggers = { conf = gse_config_file.nginx.push_count } # after every push, repairs too (sha256: new content only)
  rollout         = { batch_size = 1, wait_running = true }
}
