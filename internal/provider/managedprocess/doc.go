// Package managedprocess serves gse_managed_process (a process registered,
// hosted and optionally started by the GSE agent on a set of hosts, with
// drift detection, triggers, rollout, import by id or identity and generated
// configuration), its list resource for terraform query, and the
// gse_process_status data source. The resource's create, update and delete
// are the steps of package lifecycle, over the model turned into its plain
// desired state (steps.go).
package managedprocess
