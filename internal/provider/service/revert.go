package service

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/lifecycle"
)

// rollout.auto_revert: when failures stop a release (past
// max_fail_percentage, or its canary's), the instances it changed get the
// state's spec and their previous files back, and the operation their
// release ran (Nomad's auto_revert, ECS's deployment circuit breaker with
// rollback). The files come from backups taken on the hosts right before
// each push (health.Files), so the state holds no content.

// reverting is what a revert needs: the state's groups (their spec before
// the release) and the files each instance's push backed up.
type reverting struct {
	prior map[string]*group

	mu       sync.Mutex
	backedUp map[string]map[string][]string // instance key → account → full paths
}

// revertible reports whether a revert undoes a's change: a spec sent, files
// pushed, then a reload or restart. A start, stop or removal is left as it is.
func revertible(a action) bool { return a == actReload || a == actRestart || a == actUpdate }

// backUp backs up, on its host, every file of the batch about to be pushed;
// an instance whose files could not be backed up fails, nothing pushed.
func (r *runner) backUp(ctx context.Context, batch []*instance) []*instance {
	if r.revert == nil {
		return batch
	}
	paths := map[string]map[string][]string{} // instance key → account → paths
	for _, in := range batch {
		for _, f := range in.files {
			if paths[in.key] == nil {
				paths[in.key] = map[string][]string{}
			}
			paths[in.key][f.cf.Account] = append(paths[in.key][f.cf.Account], health.FilePath(f.cf.Path, f.cf.Name))
		}
	}
	bad := r.onHosts(ctx, health.Backup, batch, paths)
	r.revert.mu.Lock()
	for k, byAccount := range paths {
		if _, failed := bad[k]; !failed {
			r.revert.backedUp[k] = byAccount
		}
	}
	r.revert.mu.Unlock()
	var ok []*instance
	for _, in := range batch {
		if why, failed := bad[in.key]; failed {
			r.fail([]*instance{in}, 0, "its config files could not be backed up for rollout.auto_revert, so none was pushed: "+why)
			continue
		}
		ok = append(ok, in)
	}
	return ok
}

// onHosts backs up or restores the files of paths (by instance key and
// account) on the instances' hosts: one health.Files per account, each host
// once with the files of all its instances. It returns why each instance
// whose host failed did.
func (r *runner) onHosts(ctx context.Context, op health.FileOp, ins []*instance, paths map[string]map[string][]string) map[string]string {
	accounts := map[string]bool{}
	for _, byAccount := range paths {
		for a := range byAccount {
			accounts[a] = true
		}
	}
	bad := map[string]string{}
	for _, account := range slices.Sorted(maps.Keys(accounts)) {
		targets := map[string]health.Target{}
		onHost := map[string][]string{}
		for _, in := range ins {
			if ps := paths[in.key][account]; len(ps) > 0 {
				hk := in.host.Key()
				targets[hk] = health.Target{Key: hk, Host: in.host, BkHostID: in.bkHostID}
				onHost[hk] = append(onHost[hk], ps...)
			}
		}
		why, err := health.Files(ctx, r.steps.Client, r.scope, op, account, slices.Collect(maps.Values(targets)), onHost)
		for _, in := range ins {
			switch hk := in.host.Key(); {
			case len(paths[in.key][account]) == 0:
			case err != nil:
				bad[in.key] = err.Error()
			case why[hk] != "":
				bad[in.key] = why[hk]
			}
		}
	}
	return bad
}

// revertChanged undoes what the release changed on the instances of the
// batches that ran: their files restored, then the state's spec sent where
// the release changed it, with the operation the release ran. Each keeps
// the outcome it had, with the revert said in its message; one that had
// succeeded is pending again, so that the next apply releases it anew.
func (r *runner) revertChanged(ctx context.Context) {
	var ins []*instance
	had := map[string]outcome{}
	for _, in := range r.changed {
		if revertible(in.action) && r.revert.prior[in.group] != nil {
			ins = append(ins, in)
			had[in.key] = r.out[in.key]
		}
	}
	if len(ins) == 0 {
		return
	}
	broke := r.onHosts(ctx, health.Restore, ins, r.revert.backedUp)
	parts := map[partKey][]*instance{}
	for _, in := range ins {
		if broke[in.key] == "" {
			k := partKey{group: in.group, action: in.action, specHeld: in.specHeld || sameSpec(r.revert.prior[in.group], r.groups[in.group])}
			parts[k] = append(parts[k], in)
		}
	}
	var wg sync.WaitGroup
	for k, part := range parts {
		wg.Go(func() {
			g := r.revert.prior[k.group]
			running := r.running
			d := lifecycle.Desired{Meta: g.meta, Spec: g.spec, SpecHeld: k.specHeld, Hosts: hostsOf(part), Managed: running, Running: &running}
			for _, in := range r.send(ctx, d, k.action.op(), part) {
				r.record(in, outcome{status: statusRunning})
			}
		})
	}
	wg.Wait()
	for _, in := range ins {
		r.record(in, reverted(had[in.key], broke[in.key], r.out[in.key], r.stopped))
	}
}

// reverted is an instance's outcome after its revert: had before it, the
// files' restore failing with why (""), the revert's own outcome now, and
// why the release stopped.
func reverted(had outcome, why string, now outcome, stopped string) outcome {
	undo := "rollout.auto_revert restored its previous files and spec"
	switch {
	case why != "":
		undo = "rollout.auto_revert could not restore its files: " + why
	case now.status == statusFailed:
		undo = "rollout.auto_revert restored its previous files, but its spec or operation failed: " + now.message
	}
	if had.status == statusFailed {
		return outcome{status: statusFailed, code: had.code, message: had.message + "; then " + undo}
	}
	return outcome{status: statusPending, message: undo + ", as the release stopped: " + strings.TrimPrefix(stopped, "not run: ")}
}

// revertOf is rollout.auto_revert's state for a runner over prior's groups.
func revertOf(prior map[string]*group) *reverting {
	return &reverting{prior: prior, backedUp: map[string]map[string][]string{}}
}
