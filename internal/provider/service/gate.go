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
// settled by the first read. The time a pid held is counted by GSE's clock
// (reportedAt), from the first read that found it.
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
				at := reportedAt(e)
				if pids[in.key] != e.PID {
					pids[in.key], since[in.key] = e.PID, at
				}
				if held := at.Sub(since[in.key]); held >= r.gate.runningFor {
					r.record(in, outcome{status: statusRunning, pid: e.PID})
					r.passedAt(in, at)
					continue
				}
				why[in.key] = fmt.Sprintf("running with pid %d for %s of the %s health.running_for asks", e.PID, at.Sub(since[in.key]).Round(time.Second), r.gate.runningFor)
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

// reportedAt is when GSE reported e, by GSE's clock (report_time, unix
// seconds): the time a process holds its pid is GSE's to say, whatever the
// provider's clock and its polls. Now, by the provider's clock, when GSE
// reports no time.
func reportedAt(e gse.ProcStatus) time.Time {
	if e.ReportTime > 0 {
		return time.Unix(e.ReportTime, 0)
	}
	return time.Now()
}

// passedAt notes when in passed its pid gate (reportedAt), from which a
// canary's bake counts.
func (r *runner) passedAt(in *instance, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.passed == nil {
		r.passed = map[string]time.Time{}
	}
	r.passed[in.key] = at
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
