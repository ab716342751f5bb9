package service

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// gateSettings are health's: how long a pid must hold, and how long a
// batch may take to get there.
type gateSettings struct {
	runningFor time.Duration
	deadline   time.Duration
}

// settle finishes the instances whose action succeeded: removed ones are
// absent; those left running pass the health gate; the others are read
// once for what they are now.
func (r *runner) settle(ctx context.Context, done []*instance) {
	byGroup := map[string][]*instance{}
	for _, in := range done {
		if in.action == actRemove {
			r.record(in, outcome{status: statusAbsent})
			continue
		}
		byGroup[in.group] = append(byGroup[in.group], in)
	}
	gctx, cancel := context.WithTimeout(ctx, r.gate.deadline)
	defer cancel()
	var wg sync.WaitGroup
	for g, ins := range byGroup {
		wg.Go(func() { r.watch(gctx, r.groups[g].meta, ins) })
	}
	wg.Wait()
	var healthy []*instance
	for _, in := range done {
		if r.gated(in) && r.out[in.key].status == statusRunning {
			healthy = append(healthy, in)
		}
	}
	r.probe(gctx, healthy)
}

// watch reads meta on the instances' hosts until each that must run has
// run with one pid for running_for, or ctx ends; each other instance is
// settled by the first read.
func (r *runner) watch(ctx context.Context, meta gse.Meta, ins []*instance) {
	c := r.steps.Client
	since := map[string]time.Time{}
	pids := map[string]int64{}
	why := map[string]string{}
	left := ins
	sched := c.PollSchedule()
	for {
		found, err := status.Find(ctx, c, meta, hostsOf(left))
		var wait []*instance
		for _, in := range left {
			e, ok := found[in.host.Key()]
			switch {
			case err != nil:
				// A read the deadline cut short says nothing of the
				// instance: keep what the reads before it found.
				if ctx.Err() == nil || why[in.key] == "" {
					why[in.key] = "its status could not be read: " + err.Error()
				}
				wait = append(wait, in)
			case !r.gated(in):
				r.record(in, observed(e, ok))
			case ok && e.Status == gse.StateRunning && e.PID > 0:
				if pids[in.key] != e.PID {
					pids[in.key], since[in.key] = e.PID, time.Now()
				}
				if time.Since(since[in.key]) >= r.gate.runningFor {
					r.record(in, outcome{status: statusRunning, pid: e.PID})
					continue
				}
				why[in.key] = fmt.Sprintf("running with pid %d for %s of the %s health.running_for asks", e.PID, time.Since(since[in.key]).Round(time.Second), r.gate.runningFor)
				wait = append(wait, in)
			default:
				delete(pids, in.key)
				why[in.key] = "GSE reports " + describe(e, ok)
				wait = append(wait, in)
			}
		}
		if left = wait; len(left) == 0 {
			return
		}
		if sched.Next(ctx) != nil {
			r.unhealthy(left, why)
			return
		}
	}
}

// gated reports whether in must pass the gate: its action leaves it running
// and its process is not a one-shot, which exits by design.
func (r *runner) gated(in *instance) bool {
	g := r.groups[in.group]
	return r.running && in.action.leavesRunning() && !g.spec.OneShot()
}

// observed is an instance's outcome from its status entry (ok: registered).
func observed(e gse.ProcStatus, ok bool) outcome {
	switch {
	case !ok:
		return outcome{status: statusAbsent}
	case e.Status == gse.StateRunning && e.PID > 0:
		return outcome{status: statusRunning, pid: e.PID}
	}
	return outcome{status: statusStopped}
}

// describe is what GSE reports of an instance.
func describe(e gse.ProcStatus, ok bool) string {
	if !ok {
		return "the process not registered"
	}
	return fmt.Sprintf("status %s (%d), pid %d", status.Name(e.Status), e.Status, e.PID)
}

func (r *runner) record(in *instance, o outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out[in.key] = o
}
