package rollout

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// Step is one disruptive step to roll out over hosts.
type Step struct {
	What   string       // the step, such as "restart", for logs and errors
	Target fmt.Stringer // the process
	// run performs the step on one batch through the client's usual path
	// (Proc.Operate, Job.Manage, ...), returning a *gse.HostsError for hosts
	// that failed or never finished.
	Run func(ctx context.Context, batch []gse.Host) error
	// notRunning, when set, is what wait_running polls. nil for steps that
	// leave nothing running.
	NotRunning *RunningCheck
	Progress   func(msg string) // the action's progress messages; nil elsewhere
}

// Verb names op in a rollout's messages ("rolling restart of ..."): as the
// API docs name it, hosting and unhosting with their op_type.
func Verb(op gse.OpType) string {
	switch op {
	case gse.OpStatus:
		return "status query"
	case gse.OpHost:
		return "hosting (op_type 3)"
	case gse.OpUnhost:
		return "unhosting (op_type 4)"
	}
	if api := op.Info().API; api != "" {
		return api
	}
	return op.String()
}

// RunningCheck reads which hosts of batch GSE does not report running
// (status 1, pid > 0), by gse.Host.Key, each with what GSE reported; client
// paces the reads on its poll schedule.
type RunningCheck struct {
	Client *gse.Client
	Query  func(ctx context.Context, batch []gse.Host) (map[string]string, error)
}

// rolloutFailure is a host of a batch that did not come through.
type rolloutFailure struct {
	host   gse.Host
	reason string
}

// rolloutError says how far a rollout got: the failed hosts with their
// codes, the hosts it never reached, and the errors of its batches.
type rolloutError struct {
	what       string
	target     fmt.Stringer
	total      int
	batches    int
	stoppedAt  int // the last batch run, 1-based; batches when every batch ran
	maxFail    int64
	done       int
	failed     []rolloutFailure
	untouched  []gse.Host
	causes     []error
	stopReason string
}

func (e *rolloutError) Error() string {
	var b strings.Builder
	if e.stopReason != "" {
		fmt.Fprintf(&b, "rolling %s of %s stopped after batch %d of %d: %s.", e.what, e.target, e.stoppedAt, e.batches, e.stopReason)
	} else {
		fmt.Fprintf(&b, "rolling %s of %s ran all %d batches and failed on %d of %d hosts (within max_fail_percentage = %d).",
			e.what, e.target, e.batches, len(e.failed), e.total, e.maxFail)
	}
	fmt.Fprintf(&b, "\nDone on %d of %d hosts.", e.done, e.total)
	if len(e.failed) > 0 {
		fmt.Fprintf(&b, "\nFailed (%s):", plumbing.HostCount(len(e.failed)))
		for _, f := range e.failed {
			fmt.Fprintf(&b, "\n  - %s: %s", f.host, f.reason)
		}
	}
	if len(e.untouched) > 0 {
		fmt.Fprintf(&b, "\nUntouched (%s, not reached by the rollout):", plumbing.HostCount(len(e.untouched)))
		for _, h := range e.untouched {
			b.WriteString("\n  - " + h.String())
		}
	}
	for _, c := range e.causes {
		b.WriteString("\n" + c.Error())
	}
	return b.String()
}

// Unwrap exposes the batches' errors, so advice finds their GSE codes.
func (e *rolloutError) Unwrap() []error { return e.causes }

// Run rolls st out over hosts, one batch at a time, and returns the hosts
// where it succeeded (and, with wait_running, runs). Without a rollout every
// host goes in one call and its error comes back as it is.
func (r *Settings) Run(ctx context.Context, hosts []gse.Host, st Step) ([]gse.Host, error) {
	if len(hosts) == 0 {
		return nil, nil
	}
	if r == nil {
		err := st.Run(ctx, hosts)
		ok, _, _ := settle(hosts, err)
		return ok, err
	}
	batches := r.batches(hosts)
	e := &rolloutError{what: st.What, target: st.Target, total: len(hosts), batches: len(batches), maxFail: r.maxFail}
	var done []gse.Host
	for i, batch := range batches {
		if i > 0 && r.pause > 0 {
			if err := gse.Sleep(ctx, r.pause); err != nil {
				e.stop(i, batches[i:], fmt.Sprintf("the timeout passed during the pause before batch %d", i+1), err)
				break
			}
		}
		err := st.Run(ctx, batch)
		ok, failed, whole := settle(batch, err)
		if err != nil {
			e.causes = append(e.causes, err)
		}
		if r.WaitRunning && st.NotRunning != nil && len(ok) > 0 {
			var sick []rolloutFailure
			ok, sick = waitRunning(ctx, ok, st.NotRunning)
			failed = append(failed, sick...)
		}
		done = append(done, ok...)
		e.done, e.failed = len(done), append(e.failed, failed...)
		r.report(ctx, st, i+1, len(batches), batch, failed)
		switch {
		case whole:
			e.stop(i+1, batches[i+1:], fmt.Sprintf("batch %d failed as a whole", i+1), nil)
		case int64(len(e.failed))*100 > r.maxFail*int64(e.total):
			e.stop(i+1, batches[i+1:], fmt.Sprintf("%d of %d hosts failed, more than max_fail_percentage = %d allows", len(e.failed), e.total, r.maxFail), nil)
		case ctx.Err() != nil && i+1 < len(batches):
			e.stop(i+1, batches[i+1:], "the timeout passed", nil)
		}
		if e.stopReason != "" {
			break
		}
	}
	if len(e.failed) > 0 || len(e.untouched) > 0 {
		return done, e
	}
	return done, nil
}

// stop ends the rollout after batch last (1-based), leaving rest untouched.
func (e *rolloutError) stop(last int, rest [][]gse.Host, reason string, cause error) {
	e.stoppedAt, e.stopReason = last, reason
	for _, b := range rest {
		e.untouched = append(e.untouched, b...)
	}
	if cause != nil {
		e.causes = append(e.causes, cause)
	}
}

// settle splits a batch by the error of its step: the hosts it succeeded on,
// those it failed on, left pending or did nothing on, and whether the step
// failed as a whole (no per-host account: GSE may have acted on any host, or
// on none).
func settle(batch []gse.Host, err error) (ok []gse.Host, failed []rolloutFailure, whole bool) {
	if err == nil {
		return batch, nil, false
	}
	var he *gse.HostsError
	if !errors.As(err, &he) {
		for _, h := range batch {
			failed = append(failed, rolloutFailure{h, "no result of its own: the call failed as a whole (below)"})
		}
		return nil, failed, true
	}
	bad := map[string]bool{}
	for _, f := range he.Failures {
		bad[f.Host.Key()] = true
		failed = append(failed, rolloutFailure{f.Host, strings.TrimPrefix(f.String(), f.Host.String()+": ")})
	}
	for _, h := range he.Pending {
		bad[h.Key()] = true
		failed = append(failed, rolloutFailure{h, "no result (still pending)"})
	}
	for _, h := range he.NotActed {
		bad[h.Key()] = true
		failed = append(failed, rolloutFailure{h, "nothing done there (not sent, or refused)"})
	}
	for _, h := range batch {
		if !bad[h.Key()] {
			ok = append(ok, h)
		}
	}
	return ok, failed, false
}

// waitRunning polls until GSE reports every host running or ctx ends, and
// splits hosts into those running and those that never did. When ctx ends
// during a read, hosts are judged by the last read that answered: the
// deadline cutting a read short says nothing about the hosts.
func waitRunning(ctx context.Context, hosts []gse.Host, check *RunningCheck) ([]gse.Host, []rolloutFailure) {
	var bad map[string]string
	var err error
	sched := check.Client.PollSchedule()
	for {
		answer, readErr := check.Query(ctx, hosts)
		if readErr == nil {
			bad, err = answer, nil
		} else if bad == nil || ctx.Err() == nil {
			err = readErr
		}
		if readErr == nil && len(bad) == 0 {
			return hosts, nil
		}
		if sched.Next(ctx) != nil {
			var ok []gse.Host
			var sick []rolloutFailure
			for _, h := range hosts {
				switch reported, isBad := bad[h.Key()]; {
				case err != nil:
					sick = append(sick, rolloutFailure{h, "its status could not be read before the timeout: " + err.Error()})
				case isBad:
					sick = append(sick, rolloutFailure{h, "not running before the timeout (wait_running): GSE reports " + reported})
				default:
					ok = append(ok, h)
				}
			}
			return ok, sick
		}
	}
}

// report logs a finished batch at INFO and, in the action, sends it as progress.
func (r *Settings) report(ctx context.Context, st Step, i, n int, batch []gse.Host, failed []rolloutFailure) {
	result := "ok"
	if len(failed) > 0 {
		names := make([]string, len(failed))
		for j, f := range failed {
			names[j] = f.host.String() + ": " + f.reason
		}
		result = fmt.Sprintf("failed on %d of %d hosts: %s", len(failed), len(batch), strings.Join(names, "; "))
	}
	hosts := make([]string, len(batch))
	for j, h := range batch {
		hosts[j] = h.String()
	}
	msg := fmt.Sprintf("rolling %s of %s: batch %d/%d (%s) %s", st.What, st.Target, i, n, plumbing.HostCount(len(batch)), result)
	tflog.Info(ctx, msg, map[string]any{"batch": fmt.Sprintf("%d/%d", i, n), "hosts": strings.Join(hosts, ", "), "result": result})
	if st.Progress != nil {
		st.Progress(msg)
	}
}
