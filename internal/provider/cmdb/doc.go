// Package cmdb serves the data sources read from bk-cmdb: gse_cmdb_hosts,
// the hosts of a business chosen by set, module and a filter over host
// properties (list_biz_hosts), as the hosts gse_managed_process takes and the
// IP lists of the JOB resources; and gse_cmdb_processes, the processes CMDB
// defines for them (list_process_related_info), as gse_managed_process groups
// by GSEKit's rules (package gsekit).
package cmdb
