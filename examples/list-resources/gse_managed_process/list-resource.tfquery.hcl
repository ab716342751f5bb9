# terraform query (Terraform 1.14+): every process of namespace "gse" whose name
# starts with "web-" and that carries the label team = "web".
list "gse_managed_process" "web" {
  provider         = gse
  include_resource = true
  config {
    namespace   = "gse"
    name_prefix = "web-"
    labels      = { team = "web" }
  }
}
