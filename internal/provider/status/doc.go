// Package status is what GSE and JOB report about a process: the find
// functions (get_proc_status_v2, a JOB status query), the one read of a GSE
// process on its hosts (Read), host_status as the provider packs it, with
// what a read found and an apply proved there, the processes of a namespace
// (Discover), and the checks of whether a process runs that the rollout
// engine is handed for wait_running.
package status
