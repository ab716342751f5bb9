import {
  to = gse_job_managed_process.nginx
  id = "biz:2//data/nginx/bin/nginx@0:10.0.0.1,0:10.0.0.2?pid_path=/data/nginx/run/nginx.pid&contact=ops"
}
