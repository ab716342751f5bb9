# A for_each of gse_managed_process over the same groups (such as
# data.gse_cmdb_processes.biz.groups) becomes this one gse_service with no
# restart: the removed block (Terraform 1.7+) forgets its instances without
# destroying them, and the import block adopts their namespace. Remove the
# gse_managed_process block, plan (the service is imported, each process's
# spec sent and nothing started or stopped that runs), apply, then delete
# both blocks: the next plan is empty.
removed {
  from = gse_managed_process.biz
  lifecycle {
    destroy = false
  }
}

import {
  to = gse_service.biz
  id = "GSEKIT_BIZ_2"
}
