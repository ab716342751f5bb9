// Package health runs the health checks of gse_service's gate through JOB's
// fast_execute_script: a TCP probe of the ports a process instance must
// listen on (Ports, from CMDB's bind_info) and the user's health script,
// each one task per batch (Check). It knows nothing of Terraform's types
// nor of any family.
package health
