// Package rollout is the rolling engine: the rollout attribute, hosts split
// into batches in a stable order, a step run batch by batch with an optional
// pause, stopping at max_fail_percentage, and wait_running polling a running
// check the caller passes in.
package rollout
