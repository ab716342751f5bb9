// Package status is what GSE and JOB report about a process: the find
// functions (get_proc_status_v2, a JOB status query), host_status as the
// provider packs it, and the checks of whether a process runs that the
// rollout engine is handed for wait_running.
package status
