package service

import "github.com/bk-gse/terraform-provider-gse/internal/gse"

// markRegistered notes that the instances of ins on the hosts a create may
// have registered the process on (lifecycle.Steps.Create's answer, also
// after an error) are no longer absent: one whose start then failed or was
// skipped is recorded pending or failed, not absent, so the state knows
// what GSE may hold and the next apply sends its spec and operation to the
// registered process. A refresh that finds it absent after all says so, and
// the apply after it registers it again.
func markRegistered(ins []*instance, registered []gse.Host) {
	on := map[string]bool{}
	for _, h := range registered {
		on[h.Key()] = true
	}
	for _, in := range ins {
		if on[in.host.Key()] {
			in.absent = false
		}
	}
}
