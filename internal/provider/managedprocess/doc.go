// Package managedprocess serves gse_managed_process (a process registered,
// hosted and optionally started by the GSE agent on a set of hosts, with
// drift detection, triggers, rollout, import by id or identity and generated
// configuration), its list resource for terraform query, and the
// gse_process_status data source.
package managedprocess
