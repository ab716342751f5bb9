// Package cmdbhosts serves the gse_cmdb_hosts data source: the hosts of a
// business read from CMDB (list_biz_hosts), chosen by set, module and a
// filter over host properties, as the hosts gse_managed_process takes and the
// IP lists of the JOB resources.
package cmdbhosts
