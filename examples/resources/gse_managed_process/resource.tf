# proc-test registered on two hosts, hosted by the GSE agent (restarted when it
# dies) and running. Changing the config hash restarts it on every host.
resource "gse_managed_process" "agent" {
  meta = {
    namespace = "gse"
    name      = "proc-test"
    labels    = { team = "ops" }
  }

  hosts = [
    { ip = "10.0.0.1", bk_cloud_id = 0 },
    { ip = "10.0.0.2", bk_cloud_id = 0 },
  ]

  spec = {
    identity = {
      proc_name   = "proc-test"
      setup_path  = "/data/gsetest"
      pid_path    = "/data/gsetest/proc-test.pid"
      config_path = "/data/gsetest/proc-test.conf"
      log_path    = "/data/gsetest/logs"
      user        = "root"
    }
    control = {
      start_cmd   = "./start.sh"
      stop_cmd    = "./stop.sh"
      restart_cmd = "./restart.sh"
      reload_cmd  = "./reload.sh"
      kill_cmd    = "./kill.sh"
      version_cmd = "./version.sh"
      health_cmd  = "./health.sh"
    }
    resource       = { cpu = 10.0, mem = 10.0, fd = 10000, disk = 100, net = 0 }
    monitor_policy = { auto_type = 1, start_check_secs = 5, stop_check_secs = 5, start_retries = 3, start_interval = 20, op_timeout = 60 }
    configmap      = [{ path = "/data/gsetest/proc-test.conf", md5 = "5d41402abc4b2a76b9719d911017c592" }]
  }

  running          = true
  restart_triggers = { config_md5 = "5d41402abc4b2a76b9719d911017c592" }

  timeouts = {
    create = "10m"
    update = "10m"
    delete = "10m"
  }
}
