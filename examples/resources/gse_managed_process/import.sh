# namespace/name@bk_cloud_id:bk_supplier_id:ip[,...]; a host may also be bk_cloud_id:ip (as provider::gse::agent_id spells it)
terraform import gse_managed_process.agent 'gse/proc-test@0:0:10.0.0.1,0:0:10.0.0.2'
