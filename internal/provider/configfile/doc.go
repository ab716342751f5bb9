// Package configfile serves gse_config_file: a configuration file on a set
// of hosts as desired state, pushed with JOB's push_config_file, its
// SHA-256 the link to the processes that read it, and an opt-in read of
// each host's file (one JOB script) for drift.
package configfile
