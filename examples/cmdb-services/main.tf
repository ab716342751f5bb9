# A business's services as CMDB defines them, started in two tiers in CMDB's
# order: ascending priority to start, the reverse to stop (bk-cmdb's hint on
# the process field priority; GSEKit starts and reloads in ascending priority,
# and stops and restarts in descending). The processes CMDB gives a priority
# below 10 start first, then the rest, each tier rolled out in batches; a
# destroy stops the rest first, as depends_on reverses. Terraform orders
# resource blocks, not the instances of one for_each, hence two blocks.
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

variable "later_tier_priority" {
  description = "Processes whose CMDB priority is at least this start after the others, and stop before them. A null priority is 0."
  type        = number
  default     = 10
}

data "gse_cmdb_processes" "biz" {
  bk_biz_id = var.bk_biz_id
}

locals {
  groups = data.gse_cmdb_processes.biz.groups
  first  = { for key, g in local.groups : key => g if coalesce(g.priority, 0) < var.later_tier_priority }
  rest   = { for key, g in local.groups : key => g if coalesce(g.priority, 0) >= var.later_tier_priority }
}

resource "gse_managed_process" "first" {
  for_each = local.first

  meta    = each.value.meta
  spec    = each.value.spec
  hosts   = each.value.hosts
  running = true
  rollout = { batch_size = "10%", max_fail_percentage = 5, wait_running = true }
}

resource "gse_managed_process" "rest" {
  for_each = local.rest

  meta    = each.value.meta
  spec    = each.value.spec
  hosts   = each.value.hosts
  running = true
  rollout = { batch_size = "10%", max_fail_percentage = 5 }

  depends_on = [gse_managed_process.first]
}

output "services" {
  value = {
    groups  = length(local.groups)
    first   = keys(local.first)
    skipped = length(data.gse_cmdb_processes.biz.skipped)
  }
}
