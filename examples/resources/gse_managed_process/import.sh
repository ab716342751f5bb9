# namespace/name@bk_cloud_id:bk_supplier_id:ip[,bk_cloud_id:bk_supplier_id:ip...]
terraform import gse_managed_process.agent 'gse/proc-test@0:0:10.0.0.1,0:0:10.0.0.2'
