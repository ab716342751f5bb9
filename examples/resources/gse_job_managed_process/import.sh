# bk_scope_type:bk_scope_id/setup_path/proc_name@bk_cloud_id:ip[,bk_cloud_id:ip...]?pid_path=...[&value_key=...][&account=...][&contact=...]
terraform import gse_job_managed_process.nginx 'biz:2//data/nginx/bin/nginx@0:10.0.0.1,0:10.0.0.2?pid_path=/data/nginx/run/nginx.pid&contact=ops'
