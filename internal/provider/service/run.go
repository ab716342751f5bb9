package service

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/lifecycle"
)

// outcome is what an apply found of one instance.
type outcome struct {
	status  string
	code    int64
	message string // why it failed or did not run; "" when done
	pid     int64
}

// undone reports whether o leaves the instance's action to do: failed, or
// not run (pending, or absent where it was never sent).
func (o outcome) undone() bool { return o.status == statusFailed || o.message != "" }

// runner runs a schedule: tier after tier, batch after batch, each batch's
// instances through their action and then the health gate.
type runner struct {
	steps    lifecycle.Steps
	groups   map[string]*group // by processes key: the planned ones, and the prior ones of removed instances
	running  bool
	gate     gateSettings
	maxFail  int64
	pause    time.Duration
	deadline time.Duration // rollout.progress_deadline; 0: none
	bake     time.Duration // rollout.canary.bake
	skipDown bool          // agent_abnormal = "skip"
	probes   *probes       // health's checks through JOB, if any
	scope    gse.JobScope  // where JOB pushes config files

	mu      sync.Mutex
	out     map[string]outcome
	total   int
	failed  int
	ran     int               // batches run
	sent    bool              // a part of a batch reached GSE
	stopped string            // why no further batch starts
	blocked map[string]string // isolation unit → why its later tiers do not run
	// canaryPassed: the canary's tiers ran, every instance of them passed
	// its gate and stayed healthy through bake.
	canaryPassed bool
	// failedPast: failures stopped the release (past max_fail_percentage,
	// or its canary's), which rollout.auto_revert undoes.
	failedPast bool
	changed    []*instance          // the instances of the batches that ran
	revert     *reverting           // rollout.auto_revert's, nil without it
	passed     map[string]time.Time // when each instance passed its pid gate, by GSE's clock
	// progress receives a line per batch run, and the canary's verdict
	// (the action's progress events); nil for none.
	progress func(string)
}

// run runs every tier of tiers and leaves each instance's outcome in r.out.
func (r *runner) run(ctx context.Context, tiers []tier) {
	r.out, r.blocked = map[string]outcome{}, map[string]string{}
	for _, t := range tiers {
		for _, b := range t.batches {
			r.total += len(b)
		}
	}
	start := time.Now()
	for ti, t := range tiers {
		failedIn := map[string]string{}
		for bi, b := range t.batches {
			todo := r.admit(b)
			if len(todo) == 0 {
				continue
			}
			if r.ran > 0 && r.pause > 0 {
				if err := gse.Sleep(ctx, r.pause); err != nil {
					r.stopped = "not run: the timeout passed during the pause before its batch"
					r.pend(todo, r.stopped)
					continue
				}
			}
			if r.deadline > 0 && time.Since(start) > r.deadline {
				r.stopped = fmt.Sprintf("not run: the release passed rollout.progress_deadline (%s) before its batch", r.deadline)
				r.pend(todo, r.stopped)
				continue
			}
			r.ran++
			tflog.Info(ctx, fmt.Sprintf("gse_service: tier %d/%d, batch %d/%d: %d instances", ti+1, len(tiers), bi+1, len(t.batches), len(todo)))
			r.runBatch(ctx, todo)
			r.changed = append(r.changed, todo...)
			r.say(fmt.Sprintf("tier %d/%d%s, batch %d/%d: %d instances ran, %d of the %d failed so far", ti+1, len(tiers), t.label(), bi+1, len(t.batches), len(todo), r.failed, r.total))
			for _, in := range todo {
				if r.out[in.key].status == statusFailed {
					failedIn[in.unit] = fmt.Sprintf("not run: an instance of %s failed in tier %d", unitName(in.unit), ti+1)
				}
			}
			switch {
			case int64(r.failed)*100 > r.maxFail*int64(r.total):
				r.stopped = fmt.Sprintf("not run: %d of the release's %d instances failed, more than max_fail_percentage = %d allows", r.failed, r.total, r.maxFail)
				r.failedPast = true
			case ctx.Err() != nil:
				r.stopped = "not run: the timeout passed"
			}
		}
		maps.Copy(r.blocked, failedIn)
		if t.canary && (ti+1 == len(tiers) || !tiers[ti+1].canary) {
			r.judgeCanary(ctx, tiers[:ti+1])
			if r.canaryPassed {
				r.say("the canary passed")
			}
		}
	}
	if r.revert != nil && r.failedPast {
		r.revertChanged(ctx)
	}
}

// say sends line to progress, when there is one.
func (r *runner) say(line string) {
	if r.progress != nil {
		r.progress("gse_service: " + line)
	}
}

// admit is the part of batch that runs; the rest is pending with why.
func (r *runner) admit(batch []*instance) []*instance {
	var todo []*instance
	for _, in := range batch {
		switch {
		case r.stopped != "":
			r.pend([]*instance{in}, r.stopped)
		case r.blocked[in.unit] != "":
			r.pend([]*instance{in}, r.blocked[in.unit])
		default:
			todo = append(todo, in)
		}
	}
	return todo
}

func (r *runner) pend(ins []*instance, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, in := range ins {
		r.out[in.key] = pendingOutcome(in.absent, why)
	}
}

// fail records ins failed with code and why; a down agent under
// agent_abnormal = "skip" leaves them pending instead.
func (r *runner) fail(ins []*instance, code int64, why string) {
	if code == gse.HostAgentAbnormal && r.skipDown {
		r.pend(ins, "agent_abnormal = \"skip\": "+why)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, in := range ins {
		r.out[in.key] = outcome{status: statusFailed, code: code, message: why}
		r.failed++
	}
}

// runBatch runs one batch: agents first (through the gateway), its config
// files, then each part of the batch (a group and an action) at once, so that their
// operations share one operate_proc_multi task, then the gate.
func (r *runner) runBatch(ctx context.Context, batch []*instance) {
	batch = r.push(ctx, r.backUp(ctx, r.agentsUp(ctx, batch)))
	parts := map[partKey][]*instance{}
	for _, in := range batch {
		k := partKey{in.group, in.action, in.absent, in.specHeld}
		parts[k] = append(parts[k], in)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var done []*instance
	for k, ins := range parts {
		wg.Go(func() {
			ok := r.runPart(ctx, k, ins)
			mu.Lock()
			done = append(done, ok...)
			mu.Unlock()
		})
	}
	wg.Wait()
	r.settle(ctx, done)
}

// partKey is one part of a batch: the instances of one group with one action.
type partKey struct {
	group    string
	action   action
	absent   bool
	specHeld bool
}

// agentsUp is the part of batch whose hosts' agents run (through the
// gateway, list_agent_state); the rest fail or wait, as agent_abnormal says.
// Through ESB a down agent answers 117 to the operation itself.
func (r *runner) agentsUp(ctx context.Context, batch []*instance) []*instance {
	down, err := hosts.DownAgents(ctx, r.steps.Client, hostsOf(batch))
	if err != nil {
		r.fail(batch, 0, err.Error())
		return nil
	}
	var up []*instance
	for _, in := range batch {
		if a, ok := down[in.host.Key()]; ok {
			r.fail([]*instance{in}, gse.HostAgentAbnormal, fmt.Sprintf("the GSE agent of %s is not running (list_agent_state status_code %d)", in.host, a.StatusCode))
			continue
		}
		up = append(up, in)
	}
	return up
}

// runPart performs one part's action and returns the instances it succeeded on.
func (r *runner) runPart(ctx context.Context, k partKey, ins []*instance) []*instance {
	g, hs := r.groups[k.group], hostsOf(ins)
	running := r.running
	d := lifecycle.Desired{Meta: g.meta, Spec: g.spec, SpecHeld: k.specHeld, Hosts: hs, Managed: running, Running: &running}
	var pr lifecycle.Proven
	var err error
	r.mu.Lock()
	r.sent = true
	r.mu.Unlock()
	switch {
	case k.action == actRemove:
		err = r.steps.Destroy(ctx, g.meta, g.spec, hs, true)
	case k.absent:
		var registered []gse.Host
		registered, err = r.steps.Create(ctx, d, &pr)
		markRegistered(ins, registered)
	default:
		return r.send(ctx, d, k.action.op(), ins)
	}
	if err == nil {
		return ins
	}
	return r.settlePart(ins, err)
}

// settlePart records the instances err says failed, and returns the others.
func (r *runner) settlePart(ins []*instance, err error) []*instance {
	var he *gse.HostsError
	if !errors.As(err, &he) {
		r.fail(ins, apiCode(err), err.Error())
		return nil
	}
	byHost := map[string]*instance{}
	for _, in := range ins {
		byHost[in.host.Key()] = in
	}
	bad := map[string]bool{}
	note := func(h gse.Host, code int64, why string) {
		if in, ok := byHost[h.Key()]; ok && !bad[h.Key()] {
			bad[h.Key()] = true
			r.fail([]*instance{in}, code, why)
		}
	}
	for _, f := range he.Failures {
		note(f.Host, int64(f.Code), fmt.Sprintf("%s: %s", he.API, f.String()))
	}
	for _, h := range he.Pending {
		note(h, 0, fmt.Sprintf("%s: no result (GSE may still act): %v", he.API, he.Cause))
	}
	for _, h := range he.NotActed {
		note(h, 0, fmt.Sprintf("%s: not sent (nothing done there): %v", he.API, he.Cause))
	}
	var ok []*instance
	for _, in := range ins {
		if !bad[in.host.Key()] {
			ok = append(ok, in)
		}
	}
	return ok
}

// apiCode is the code of an API's refusal, or 0.
func apiCode(err error) int64 {
	var ae *gse.APIError
	if errors.As(err, &ae) {
		return int64(ae.Code)
	}
	return 0
}

// unitName names an isolation unit in messages.
func unitName(unit string) string {
	if unit == "" {
		return "the service"
	}
	return unit
}
