package service

import (
	"context"
	"fmt"
	"sync"

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
		if err := gse.Sleep(ctx, r.bake); err != nil {
			r.stopped = "not run: the timeout passed while the canary baked"
			return
		}
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

// rebake reads the canary's gated instances once more after bake: each must
// run with the pid it passed its gate with, then pass the JOB checks again.
func (r *runner) rebake(ctx context.Context, ins []*instance) {
	byGroup := map[string][]*instance{}
	passedWith := map[string]int64{}
	for _, in := range ins {
		if r.gated(in) {
			byGroup[in.group] = append(byGroup[in.group], in)
			passedWith[in.key] = r.out[in.key].pid
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var steady []*instance
	for g, gi := range byGroup {
		wg.Go(func() {
			found, err := status.Find(ctx, r.steps.Client, r.groups[g].meta, hostsOf(gi))
			for _, in := range gi {
				e, ok := found[in.host.Key()]
				switch was := passedWith[in.key]; {
				case err != nil:
					r.fail([]*instance{in}, apiCode(err), "its status could not be read after rollout.canary.bake: "+err.Error())
				case !ok || e.Status != gse.StateRunning || e.PID != was:
					r.fail([]*instance{in}, 0, fmt.Sprintf("after rollout.canary.bake (%s) GSE reports %s, not pid %d running", r.bake, describe(e, ok), was))
				default:
					mu.Lock()
					steady = append(steady, in)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	gctx, cancel := context.WithTimeout(ctx, r.gate.deadline)
	defer cancel()
	r.probe(gctx, steady)
}
