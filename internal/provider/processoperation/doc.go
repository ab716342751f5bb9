// Package processoperation serves gse_process_operation, as a resource (run
// once, and again when its triggers change) and as an action (terraform apply
// -invoke, action_trigger): start, stop, status, restart, reload or kill of a
// GSE process (operate_proc_v2) or of JOB processes (operate_process,
// operate_proc), in rollout batches.
package processoperation
