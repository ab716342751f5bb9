# A status answer's content, as GSE sends it (a JSON document, here encoded
# with jsonencode), and what the function makes of it. In practice the content
# is a `content` of the results of a gse_process_operation with op = "status".
locals {
  status_content = jsonencode({
    process = [{
      procname = "proc-test"
      instance = [
        { pid = 4321, isAuto = true, version = "1.2.0", cpuUsage = 0.5 },
        { pid = -1, isAuto = "1", version = "" }, # the agent spells flags as it likes
      ]
    }]
  })
}

output "parsed_status" {
  value = provider::gse::parse_status_content(local.status_content)
  # {
  #   instances = [
  #     { pid = 4321, hosted = true, version = "1.2.0" },
  #     { pid = -1, hosted = true, version = "" },
  #   ]
  #   running = true
  #   pid     = 4321
  #   hosted  = true
  #   version = "1.2.0"
  # }
}
