# A fleet addressed the way BlueKing tools address it: by business topology
# in CMDB, never by a hand-written IP list. Hosts join and leave with the
# modules: the next plan adds or removes exactly them, and rollout paces the
# additions.
terraform {
  required_providers {
    gse = { source = "bk-gse/gse" }
  }
}

# endpoint, app_code, app_secret and username from BK_COMPONENT_API_URL,
# BK_APP_CODE, BK_APP_SECRET and BK_USERNAME; cmdb_gateway_url (or
# BKAPP_BK_CC_APIGATEWAY) lists hosts through the bk-cmdb gateway instead.
provider "gse" {}

variable "bk_biz_id" {
  type    = number
  default = 2
}

variable "monitored_modules" {
  type    = list(number)
  default = [1001, 1002]
}

variable "web_set" {
  type    = number
  default = 102
}

# The monitoring plugin runs on every host of two modules.
data "gse_cmdb_hosts" "monitored" {
  bk_biz_id     = var.bk_biz_id
  bk_module_ids = var.monitored_modules
}

resource "gse_managed_process" "exporter" {
  meta  = { namespace = "monitor", name = "node-exporter" }
  hosts = data.gse_cmdb_hosts.monitored.hosts

  spec = {
    identity = {
      proc_name  = "node_exporter"
      setup_path = "/usr/local/gse/plugins/bin"
      pid_path   = "/var/run/gse/node_exporter.pid"
      user       = "root"
    }
    control        = { start_cmd = "./start.sh node_exporter", stop_cmd = "./stop.sh node_exporter" }
    resource       = { cpu = 0, mem = 0 } # no limits
    monitor_policy = { auto_type = 1 }    # resident: the agent restarts it when it dies
  }
  running = true
  rollout = { batch_size = "10%", max_fail_percentage = 5 }
}

# nginx through the JOB platform on the ip_list of a set.
data "gse_cmdb_hosts" "web" {
  bk_biz_id  = var.bk_biz_id
  bk_set_ids = [var.web_set]
}

resource "gse_job_managed_process" "nginx" {
  bk_scope_type = "biz"
  bk_scope_id   = tostring(var.bk_biz_id)
  proc_name     = "nginx"
  contact       = "ops"
  setup_path    = "/data/nginx/bin"
  pid_path      = "/data/nginx/run/nginx.pid"
  start_cmd     = "./nginx"
  stop_cmd      = "./nginx -s stop"
  type          = 1 # resident
  ip_list       = data.gse_cmdb_hosts.web.ip_list
}

# Every plan and apply checks that the plugin runs on every host.
data "gse_process_status" "exporter" {
  meta       = gse_managed_process.exporter.meta
  hosts      = data.gse_cmdb_hosts.monitored.hosts
  depends_on = [gse_managed_process.exporter]
}

check "exporter_running" {
  assert {
    condition     = data.gse_process_status.exporter.all_running
    error_message = "node_exporter is not running on every monitored host."
  }
}

output "fleet" {
  value = {
    monitored = data.gse_cmdb_hosts.monitored.host_count
    web       = length(data.gse_cmdb_hosts.web.ip_list)
    skipped   = data.gse_cmdb_hosts.monitored.skipped_host_ids
  }
}
