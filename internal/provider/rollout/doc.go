// Package rollout is the rolling engine: the rollout attribute, targets
// (hosts, files on hosts, JOB processes' IPs) split into batches in a stable
// order, a step run batch by batch (tier by tier, when the targets come in
// tiers) with an optional pause, stopping at max_fail_percentage, and
// wait_running polling a running check the caller passes in.
package rollout
