package service

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// judgeCanary decides, after the canary's tiers, whether the release goes
// on: every canary instance passed its gate, then, after bake, still runs
// with the pid it passed with and passes health's JOB checks again (Nomad's
// canaries must be healthy before promotion; Argo Rollouts' pause before
// the next step). Otherwise no further batch starts.
func (r *runner) judgeCanary(ctx context.Context, canary []tier) {
	var ins []*instance
	for _, t := range canary {
		for _, b := range t.batches {
			ins = append(ins, b...)
		}
	}
	if key, why := r.firstUndone(ins); key != "" {
		r.stopped, r.failedPast = fmt.Sprintf("not run: the canary failed (%s: %s)", key, why), true
		return
	}
	if r.bake > 0 {
		r.rebake(ctx, ins)
		if key, why := r.firstUndone(ins); key != "" {
			r.stopped, r.failedPast = fmt.Sprintf("not run: the canary did not stay healthy for rollout.canary.bake (%s: %s)", key, why), true
			return
		}
	}
	r.canaryPassed = true
}

// firstUndone is the first of ins whose action is not done, and why.
func (r *runner) firstUndone(ins []*instance) (string, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, in := range ins {
		if o, ok := r.out[in.key]; !ok || o.undone() {
			return in.key, o.message
		}
	}
	return "", ""
}

// rebake watches the canary's gated instances until each has run with the
// pid it passed its gate with for bake more, by GSE's clock (reportedAt),
// then runs the JOB checks on them again. It reads when the bake should be
// over, or sooner while GSE's clock runs ahead of the provider's (0.1 s,
// then twice as long each time): a ten-minute bake costs a dozen reads, and
// a simulator whose clock a test runs fast costs no wait.
func (r *runner) rebake(ctx context.Context, ins []*instance) {
	r.mu.Lock()
	var left []*instance
	passedWith, from := map[string]int64{}, map[string]time.Time{}
	for _, in := range ins {
		if r.gated(in) {
			left = append(left, in)
			passedWith[in.key], from[in.key] = r.out[in.key].pid, r.passed[in.key]
		}
	}
	r.mu.Unlock()
	var steady []*instance
	for step := 100 * time.Millisecond; len(left) > 0; step *= 2 {
		still, remaining := r.bakeRead(ctx, left, passedWith, from)
		for _, in := range left {
			if !slices.Contains(still, in) && !r.out[in.key].undone() {
				steady = append(steady, in)
			}
		}
		if left = still; len(left) == 0 {
			break
		}
		if err := gse.Sleep(ctx, min(step, remaining)); err != nil {
			r.fail(left, 0, fmt.Sprintf("the timeout passed while the canary baked (rollout.canary.bake %s)", r.bake))
			return
		}
	}
	gctx, cancel := context.WithTimeout(ctx, r.gate.deadline)
	defer cancel()
	r.probe(gctx, steady)
}

// bakeRead reads the instances once: it fails those whose pid changed or
// that stopped, and returns those whose bake is not over, with the least
// time one of them has left.
func (r *runner) bakeRead(ctx context.Context, ins []*instance, passedWith map[string]int64, from map[string]time.Time) ([]*instance, time.Duration) {
	byGroup := map[string][]*instance{}
	for _, in := range ins {
		byGroup[in.group] = append(byGroup[in.group], in)
	}
	var mu sync.Mutex
	var still []*instance
	remaining := r.bake
	var wg sync.WaitGroup
	for g, gi := range byGroup {
		wg.Go(func() {
			found, err := status.Find(ctx, r.steps.Client, r.groups[g].meta, hostsOf(gi))
			for _, in := range gi {
				e, ok := found[in.host.Key()]
				switch was := passedWith[in.key]; {
				case err != nil:
					r.fail([]*instance{in}, apiCode(err), "its status could not be read during rollout.canary.bake: "+err.Error())
				case !ok || e.Status != gse.StateRunning || e.PID != was:
					r.fail([]*instance{in}, 0, fmt.Sprintf("during rollout.canary.bake (%s) GSE reported %s, not pid %d running", r.bake, describe(e, ok), was))
				default:
					if baked := reportedAt(e).Sub(from[in.key]); baked < r.bake {
						mu.Lock()
						still, remaining = append(still, in), min(remaining, r.bake-baked)
						mu.Unlock()
					}
				}
			}
		})
	}
	wg.Wait()
	return still, remaining
}
