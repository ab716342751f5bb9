# The Linux hosts of two modules of business 2, from CMDB (list_biz_hosts),
# ready for gse_managed_process.hosts; their ip_list for the JOB resources.
data "gse_cmdb_hosts" "web" {
  bk_biz_id     = 2
  bk_module_ids = [1001, 1002]
  filter = {
    condition = "AND"
    rules = [
      { field = "bk_os_type", operator = "equal", value = "1" }, # Linux
      # Any numeric field, CMDB's own or a custom one, compares with number.
      { field = "bk_service_term", operator = "greater_or_equal", number = 2 },
      {
        condition = "OR"
        rules = [
          # value is a regular expression: literal = true matches "web-" as written.
          { field = "bk_host_name", operator = "begins_with", value = "web-", literal = true },
          { field = "bk_host_innerip", operator = "begins_with", value = "10\\.0\\.0\\." }, # escaped by hand
          { field = "bk_cloud_id", operator = "in", numbers = [0, 1] },
        ]
      },
    ]
  }
}

output "web_hosts" {
  value = {
    count   = data.gse_cmdb_hosts.web.host_count
    skipped = data.gse_cmdb_hosts.web.skipped_host_ids # no address usable in this mode
  }
}
