# The service's GSE namespaces, comma-separated (GSEKit's is GSEKIT_BIZ_{bk_biz_id}): every process GSE
# has there becomes an element of instances, with its status and pid; processes (the spec GSE cannot
# return) comes from the configuration. The first apply sends each process's spec to its hosts
# (update_proc_info; through the gateway an op_type 3 carrying it), each host keeping the labels GSE holds
# when meta.labels is unset, and starts only the instances found stopped: nothing that runs restarts,
# and the plan after it is empty. Instances of the namespace that processes does not hold are left as
# they are, out of the service, with a warning.
terraform import gse_service.biz GSEKIT_BIZ_2
