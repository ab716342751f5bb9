package rollout

import (
	"context"
	"fmt"
	"slices"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Run rolls st out over targets, one batch at a time, and returns the
// targets where it succeeded (and, with wait_running, runs). Without a
// rollout every target goes in one call and its error comes back as it is.
func Run[T Target](ctx context.Context, r *Settings, targets []T, st Step[T]) ([]T, error) {
	if r == nil {
		if len(targets) == 0 {
			return nil, nil
		}
		err := st.Run(ctx, targets)
		ok, _, _ := settle(st, targets, err)
		return ok, err
	}
	return RunTiers(ctx, r, [][]T{targets}, st)
}

// RunTiers rolls st out over tiers one after another, each in batches of
// the rollout, and returns the targets where it succeeded. A tier starts
// only once every target of the tiers before it succeeded; the batch size
// and max_fail_percentage count all the targets. Without a rollout each
// tier goes in one batch.
func RunTiers[T Target](ctx context.Context, r *Settings, tiers [][]T, st Step[T]) ([]T, error) {
	if r == nil {
		r = &Settings{}
	}
	total := 0
	for _, tier := range tiers {
		total += len(tier)
	}
	if total == 0 {
		return nil, nil
	}
	batches := plan(r.batchLen(total), tiers, st.Place)
	ro := &rolling[T]{r: r, st: st, tiers: tiers, batches: batches, failedIn: make([]int, len(tiers)),
		err: &rolloutError[T]{what: st.What, target: st.Target, total: total, batches: len(batches), maxFail: r.maxFail}}
	for i := range batches {
		if !ro.runBatch(ctx, i) {
			break
		}
	}
	if len(ro.err.failed) > 0 || len(ro.err.untouched) > 0 {
		return ro.done, ro.err
	}
	return ro.done, nil
}

// batch is one batch of a rollout, in the tier it belongs to (0-based).
type batch[T Target] struct {
	tier    int
	targets []T
}

// plan splits each tier into batches of size, in rollout order. RunTiers
// takes size from all the targets, so batch_size means the same with tiers
// as without.
func plan[T Target](size int, tiers [][]T, place func(T) Place) []batch[T] {
	var out []batch[T]
	for i, tier := range tiers {
		for part := range slices.Chunk(order(tier, place), size) {
			out = append(out, batch[T]{tier: i, targets: part})
		}
	}
	return out
}

// rolling is a rollout under way: its batches, the targets done so far and
// the error it builds.
type rolling[T Target] struct {
	r        *Settings
	st       Step[T]
	tiers    [][]T
	batches  []batch[T]
	done     []T
	failedIn []int // the failures of each tier
	err      *rolloutError[T]
}

// runBatch runs batch i (0-based) and reports whether the rollout goes on.
func (ro *rolling[T]) runBatch(ctx context.Context, i int) bool {
	r, st, e, b := ro.r, ro.st, ro.err, ro.batches[i]
	if i > 0 && r.pause > 0 {
		if err := gse.Sleep(ctx, r.pause); err != nil {
			ro.stop(i, fmt.Sprintf("the timeout passed during the pause before batch %d", i+1), err)
			return false
		}
	}
	err := st.Run(ctx, b.targets)
	ok, failed, whole := settle(st, b.targets, err)
	if err != nil {
		e.causes = append(e.causes, err)
	}
	if r.WaitRunning && st.NotRunning != nil && len(ok) > 0 {
		var sick []Failure[T]
		ok, sick = waitRunning(ctx, ok, st.NotRunning)
		failed = append(failed, sick...)
	}
	ro.done = append(ro.done, ok...)
	ro.failedIn[b.tier] += len(failed)
	e.done, e.failed = len(ro.done), append(e.failed, failed...)
	ro.report(ctx, i, failed)
	if reason := ro.stopReason(ctx, i, whole); reason != "" {
		ro.stop(i+1, reason, nil)
		return false
	}
	return true
}

// stopReason says why the rollout stops after batch i, or "" when it goes on.
func (ro *rolling[T]) stopReason(ctx context.Context, i int, whole bool) string {
	e, tier := ro.err, ro.batches[i].tier
	switch {
	case whole:
		return fmt.Sprintf("batch %d failed as a whole", i+1)
	case int64(len(e.failed))*100 > ro.r.maxFail*int64(e.total):
		return fmt.Sprintf("%d of %d hosts failed, more than max_fail_percentage = %d allows", len(e.failed), e.total, ro.r.maxFail)
	case i+1 == len(ro.batches):
		return ""
	case ctx.Err() != nil:
		return "the timeout passed"
	case ro.batches[i+1].tier != tier && ro.failedIn[tier] > 0:
		return fmt.Sprintf("%d of the tier's %d hosts failed, which stops the later tiers", ro.failedIn[tier], len(ro.tiers[tier]))
	}
	return ""
}

// stop ends the rollout after batch last (1-based), leaving the later
// batches untouched.
func (ro *rolling[T]) stop(last int, reason string, cause error) {
	e := ro.err
	e.stoppedAt, e.stopReason = last, reason
	if len(ro.tiers) > 1 {
		e.tier = fmt.Sprintf(" (tier %d of %d)", ro.batches[last-1].tier+1, len(ro.tiers))
	}
	for _, b := range ro.batches[last:] {
		e.untouched = append(e.untouched, b.targets...)
	}
	if cause != nil {
		e.causes = append(e.causes, cause)
	}
}
