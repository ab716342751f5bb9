# The state of nginx (the gse_job_managed_process example) on each IP, queried through JOB.
data "gse_job_process_status" "nginx" {
  bk_biz_id  = 2
  setup_path = "/data/nginx/bin"
  proc_name  = "nginx"
  pid_path   = "/data/nginx/run/nginx.pid"
  ip_list = [
    { bk_cloud_id = 0, ip = "10.0.0.1" },
    { bk_cloud_id = 0, ip = "10.0.0.2" },
  ]
}

output "nginx_pids" {
  value = { for s in data.gse_job_process_status.nginx.ip_status : s.ip => s.pid }
}
