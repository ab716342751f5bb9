// Package spec is what a process is: its GSE meta (namespace, name, labels)
// and spec (identity, control commands, resource limits, monitor policy,
// config files) as attributes, models and the packed value of
// gse_managed_process.spec, and the JOB platform's process fields.
package spec
