// Package hosts is the provider's host vocabulary: the host objects of
// gse_managed_process and of the data sources (models, the packed list, their
// schema, checks and plan modifier), a host's key in host_status, a list as
// the client's hosts, the JOB IP lists, the hosts of an import id, and whether the configured client can reach them (agent ids and IPv6
// need the GSE 2.0 gateway; an agent that is down fails at once).
package hosts
