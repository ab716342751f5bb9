# nginx of a business released with a canary: each change first goes to one
# host alone, behind a health script that checks the config it finds; the
# rest waits for a reviewer to promote it. A canary that fails
# is reverted: its previous files (backed up on the host before the push)
# and spec come back, and it is reloaded again.
data "gse_cmdb_processes" "nginx" {
  bk_biz_id      = 2
  process_names  = ["nginx"]
  with_instances = true
}

variable "release" {
  description = "The release of nginx's config, as CI sets it."
  type        = string
  default     = "1"
}

variable "promote_revision" {
  description = "The revision whose canary a reviewer promoted (gse_service.nginx.revision), null until one is."
  type        = string
  default     = null
}

resource "gse_service" "nginx" {
  bk_biz_id = 2
  processes = data.gse_cmdb_processes.nginx.groups

  rollout = {
    batch_size  = "25%"
    auto_revert = true
    # One host of each group first, then 10 minutes of steady health, then
    # a reviewer's promotion.
    canary = { size = 1, bake = "10m", promote = "manual" }
  }
  promote_revision = var.promote_revision

  health = {
    running_for      = "10s"
    healthy_deadline = "2m"
    script           = { content = "/data/nginx/sbin/nginx -t -p /data/nginx" }
  }

  config_files = {
    for key, i in data.gse_cmdb_processes.nginx.instances : key => {
      instance  = key
      path      = "/data/nginx/conf"
      file_name = "${i.name}.conf"
      content   = "# release ${var.release}\nworker_processes 2;\npid /data/nginx/run/${i.name}.pid;\n"
    }
  }

  timeouts = { update = "30m" } # the canary's bake counts against it
}
