# A service written by hand, without CMDB: its database (priority 0) starts
# before its web tier (priority 10) and stops after it, two hosts at a time;
# a batch goes on once its instances have kept one pid for 10 seconds.
locals {
  hosts = [
    { ip = "10.0.0.1", bk_cloud_id = 0 },
    { ip = "10.0.0.2", bk_cloud_id = 0 },
    { ip = "10.0.0.3", bk_cloud_id = 0 },
    { ip = "10.0.0.4", bk_cloud_id = 0 },
  ]
}

resource "gse_service" "shop" {
  bk_biz_id = 2 # JOB's scope for config_files

  processes = {
    "shop/db" = {
      meta     = { namespace = "shop", name = "db" }
      priority = 0
      hosts    = local.hosts
      spec = {
        identity       = { proc_name = "db", setup_path = "/data/shop/db", pid_path = "/data/shop/db/db.pid", user = "shop" }
        control        = { start_cmd = "./start.sh", stop_cmd = "./stop.sh", restart_cmd = "./restart.sh" }
        resource       = { cpu = 0, mem = 0 }
        monitor_policy = { auto_type = 1 } # resident: the agent restarts it when it dies
      }
    }
    "shop/web" = {
      meta     = { namespace = "shop", name = "web" }
      priority = 10
      hosts    = local.hosts
      spec = {
        identity       = { proc_name = "web", setup_path = "/data/shop/web", pid_path = "/data/shop/web/web.pid", user = "shop" }
        control        = { start_cmd = "./start.sh", stop_cmd = "./stop.sh", restart_cmd = "./restart.sh", reload_cmd = "./reload.sh" }
        resource       = { cpu = 0, mem = 0 }
        monitor_policy = { auto_type = 1 }
      }
    }
  }

  rollout = { batch_size = 2 }
  health  = { running_for = "10s" }

  # One file on every host of the web group: a change is pushed batch by
  # batch, each right before its hosts' web instances reload.
  config_files = {
    web_env = { group = "shop/web", path = "/data/shop/web", file_name = "web.env", content = "DB_ADDR=127.0.0.1:5432\n" }
  }

  # A new value restarts every instance, web before db.
  restart_triggers = { release = "2026.11" }
}
