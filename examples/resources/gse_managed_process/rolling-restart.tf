# A log agent on a fleet, restarted in batches when its configuration changes:
# 10% of the hosts at a time, in order of cloud id and IP, each batch waited
# for until GSE reports it running, 30 seconds apart. The first failed host
# stops the rollout after its batch; the next apply restarts only the hosts
# the change has not reached yet.
resource "gse_managed_process" "log_agent" {
  meta = { namespace = "gse", name = "log-agent" }

  hosts = [for i in range(1, 21) : { ip = "10.0.2.${i}", bk_cloud_id = 0 }]

  spec = {
    identity = {
      proc_name  = "log-agent"
      setup_path = "/usr/local/log-agent"
      pid_path   = "/usr/local/log-agent/run/log-agent.pid"
      user       = "root"
    }
    control = {
      start_cmd   = "./start.sh"
      stop_cmd    = "./stop.sh"
      restart_cmd = "./restart.sh"
    }
    resource       = { cpu = 10.0, mem = 10.0 }
    monitor_policy = { auto_type = 1 }
  }

  running          = true
  restart_triggers = { config_md5 = "9e107d9d372bb6826bd81d3542a419d6" }

  rollout = {
    batch_size          = "10%"
    max_fail_percentage = 0
    wait_running        = true
    pause               = "30s"
  }
}
