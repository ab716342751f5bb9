# What `terraform plan -generate-config-out=generated.tf` (or `terraform query
# -generate-config-out=generated.tf`) writes on Terraform 1.14+ for an import of
# gse/proc-imported@0:0:10.0.0.1, with the values GSE cannot return filled in: the lines marked
# "fill in". The plan names each of them until it is set. The `null` lines may be deleted.
resource "gse_managed_process" "imported" {
  hosts = [
    {
      agent_id    = null
      bk_cloud_id = 0
      ip          = "10.0.0.1"
    },
  ]
  meta = {
    labels    = null
    name      = "proc-imported"
    namespace = "gse"
  }
  reload_triggers  = null
  restart_triggers = null
  rollout          = null
  running          = null
  spec = {
    configmap = null
    control = {
      health_cmd  = null
      kill_cmd    = null
      reload_cmd  = null
      restart_cmd = null
      start_cmd   = "./start.sh" # not required, but the registered commands are replaced by these
      stop_cmd    = "./stop.sh"
      version_cmd = null
    }
    identity = {
      config_path = null
      index_key   = null
      log_path    = null
      pid_path    = "/data/gsetest/proc-imported.pid" # fill in
      proc_name   = "proc-imported"                   # fill in
      setup_path  = "/data/gsetest"                   # fill in
      user        = "root"                            # fill in
    }
    monitor_policy = {
      auto_type        = 1 # fill in: 0 periodic, 1 resident, 2 one-shot
      crontab_rule     = null
      op_timeout       = null
      start_check_secs = null
      start_interval   = null
      start_retries    = null
      stop_check_secs  = null
    }
    resource = {
      cpu  = 0 # fill in
      disk = null
      fd   = null
      mem  = 0 # fill in
      net  = null
    }
    warn_report_policy = null
  }
  timeouts = null
}
