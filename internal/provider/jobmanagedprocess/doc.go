// Package jobmanagedprocess serves gse_job_managed_process, a process hosted
// on a set of IPs through the JOB platform (operate_process op_type 3 and 4,
// JOB 3.6 or earlier), and the gse_job_process_status data source that reads
// it back with a status query.
package jobmanagedprocess
