// Package health runs scripts on hosts through JOB's fast_execute_script:
// the health checks of gse_service's gate, a TCP probe of the ports a
// process instance must listen on (Ports, from CMDB's bind_info) and the
// user's health script, each one task per batch (Check); and the read of a
// file's SHA-256 (ReadScript, ParseRead, JudgeRead, ReadError) that
// gse_config_file's and gse_service's verify run, one task a file
// (ReadFile); and the backup and restore of config files beside
// themselves that gse_service's auto_revert runs (Files). How JOB takes the
// hosts of a task (Addressing, HostKey,
// JobTargets, ResultKey) serves gse_service's pushes too. It knows nothing
// of Terraform's types nor of any family.
package health
