# nginx hosted through the JOB platform (manage_proc) on two hosts of business 2.
resource "gse_job_managed_process" "nginx" {
  bk_scope_type = "biz"
  bk_scope_id   = "2"

  proc_name   = "nginx"
  proc_owner  = "ops"
  setup_path  = "/data/nginx/bin"
  pid_path    = "/data/nginx/run/nginx.pid"
  cfg_path    = "/data/nginx/conf/nginx.conf"
  log_path    = "/data/nginx/logs"
  start_cmd   = "./nginx"
  stop_cmd    = "./nginx -s stop"
  restart_cmd = "./nginx -s stop; ./nginx"
  reload_cmd  = "./nginx -s reload"

  type    = 1 # resident
  cpu_lmt = 20
  mem_lmt = 30

  ip_list = [
    { bk_cloud_id = 0, ip = "10.0.0.1" },
    { bk_cloud_id = 0, ip = "10.0.0.2" },
  ]
}
