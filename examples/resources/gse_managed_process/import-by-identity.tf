# Terraform 1.12+: the hosts are discovered (sync_proc_status, then get_proc_status_v2 on each).
import {
  to       = gse_managed_process.agent
  identity = { namespace = "gse", name = "proc-test" }
}
