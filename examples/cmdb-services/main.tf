# A business's services as CMDB defines them, run as one gse_service:
# started tier by tier in CMDB priority order as GSEKit runs them (agent,
# priority 0, before nginx, priority 10; a stop or destroy the other way),
# each tier a quarter of its hosts at a time behind a health gate, every
# nginx instance with its own config file rendered from nginx.conf.tpl.
# Nightly, `terraform plan -detailed-exitcode` exits 2 when an instance was
# stopped behind Terraform's back, naming it in a warning; the apply starts
# it and nothing else.
terraform {
  required_providers {
    gse = { source = "bk-gse/gse" }
  }
}

# endpoint, app_code, app_secret and username from BK_COMPONENT_API_URL,
# BK_APP_CODE, BK_APP_SECRET and BK_USERNAME; cmdb_gateway_url (or
# BKAPP_BK_CC_APIGATEWAY) reads CMDB through the bk-cmdb gateway instead.
provider "gse" {}

variable "bk_biz_id" {
  type    = number
  default = 2
}

data "gse_cmdb_processes" "biz" {
  bk_biz_id      = var.bk_biz_id
  with_instances = true
}

resource "gse_service" "biz" {
  bk_biz_id = var.bk_biz_id # JOB's scope for the config files and the health probes
  # with_instances: each host of a group carries its CMDB set, module and
  # bind_info, and the data source's instances feed config_files below.
  processes = data.gse_cmdb_processes.biz.groups

  # One tier per CMDB priority; a failure stops the later tiers of its set only.
  order   = { by = "priority", isolate_by = "set" }
  rollout = { batch_size = "25%", max_fail_percentage = 10 }
  # A batch goes on once its instances kept one pid for 10 s and listen on
  # their CMDB bind_info ports.
  health = { running_for = "10s", healthy_deadline = "5m", tcp = { ports = "bind_info" } }

  # nginx_1.conf and nginx_2.conf on each host (proc_num 2), pushed in the
  # host's batch right before its start or reload; a change shows as a diff
  # in the plan and reloads only the instances whose file changed.
  config_files = {
    for key, i in data.gse_cmdb_processes.biz.instances : key => {
      instance  = key
      path      = "/data/nginx/conf"
      file_name = "${i.name}.conf"
      content   = templatefile("${path.module}/nginx.conf.tpl", i.context)
    } if i.context.bk_process_name == "nginx"
  }

  lifecycle {
    # A create whose instances partly failed is kept, not tainted (replacing
    # it would restart every instance): fail the pipeline here instead. The
    # next apply runs only the failed and pending instances.
    postcondition {
      condition     = self.failed_count == 0
      error_message = "Instances failed: ${join("; ", [for k, i in self.instances : "${k}: ${i.message}" if i.status == "failed"])}. The next apply runs them again, with those left pending."
    }
  }
}

# The release is in the plan: gse_service.biz's schedule (tiers of batches of
# instance keys) and each instance's action. No output copies it: a refresh
# empties it once the release ran, and a changed output would make the
# nightly `terraform plan -detailed-exitcode` exit 2.
output "failed" {
  description = "Instances whose last action failed, with why."
  value       = { for k, i in gse_service.biz.instances : k => i.message if i.status == "failed" }
}

output "pending_count" {
  description = "Instances the last apply did not run (see their message): the next apply runs them."
  value       = gse_service.biz.pending_count
}
