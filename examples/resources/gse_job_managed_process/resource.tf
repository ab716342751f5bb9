# nginx hosted through the JOB platform (operate_process, op_type 3) on two hosts of
# business 2. Needs JOB 3.6 or earlier: on JOB 3.7+ use gse_managed_process.
resource "gse_job_managed_process" "nginx" {
  bk_scope_type = "biz"
  bk_scope_id   = "2"

  proc_name   = "nginx"
  contact     = "ops"
  account     = "nginx" # the agent runs it as this user; root when unset
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
