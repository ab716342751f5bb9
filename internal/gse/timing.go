package gse

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// The client's timing policy, in one place: the poll schedule of tasks (and of
// anything else watching a state change, such as wait_running), the batch
// window of Operate, the retry backoff of HTTP attempts, and their defaults.
// Config overrides the defaults (tests and benchmarks shorten them).
const (
	defaultRequestTimeout = 30 * time.Second       // one HTTP attempt
	defaultPollInitial    = 100 * time.Millisecond // first poll after a submit
	defaultPollMax        = 5 * time.Second        // the poll interval's cap
	defaultRetryWaitMin   = time.Second            // first retry backoff step
	defaultRetryWaitMax   = 30 * time.Second       // retry backoff cap
	maxServerWait         = 2 * time.Minute        // bound on a Retry-After or rate-limit reset honoured

	// The batch window of Operate, and its adaptive bounds for announced
	// operations; batch.go says why these values.
	defaultBatchWindow = 100 * time.Millisecond
	announcedWindow    = 250 * time.Millisecond
	batchLinger        = 20 * time.Millisecond
)

// backoff paces the polls of a task and the re-sends of hosts answered 115.
//
// The first poll comes soon after the submit (100 ms by default): GSE often
// answers a small task within that, and a first wait of 0.5 s cost every task
// half a second. Intervals then grow ×4: polls at 0.1, 0.5, 2.1 s, then every
// 5 s. A task of 2 s is seen done at the third poll, 0.1 s late, so a create
// (register, submit, 3 polls) makes 5 requests; a ×1.5 schedule from 0.1 s
// needs 6 polls to pass 2 s, and one from 0.5 s wastes up to 1 s.
//
// The early intervals are deterministic on purpose: with ±20 % jitter the
// third poll could come at 1.7 s, miss a 2 s task and leave it waiting for
// the next one at 6.7 s. Jitter matters where many pollers could fall into
// step, which is at the cap; there it is applied, up to +20 %, never shorter.
type backoff struct {
	min, max time.Duration
	factor   int64
	first    *firstPoll // the wait before a task's first poll, when it is not min
}

func newBackoff(minD, maxD time.Duration) backoff {
	return backoff{min: minD, max: maxD, factor: 4, first: newFirstPoll(minD)}
}

// firstPoll adapts the wait before a task's first poll to how soon the
// installation finishes tasks. A poll that finds the task done halves the
// next first wait, down to a tenth of min; one that finds it pending doubles
// it, up to min. A task that finishes at once (an operation on hosts whose
// agent answers within milliseconds) then costs one poll some 10 ms after the
// submit instead of min (100 ms): that wait was most of a one-host create or
// destroy (bench-e2e's many row). Tasks that take longer (GSE's usual
// seconds) find the first poll pending and keep min, so they cost no more
// requests; after a run of fast tasks the first slow one costs at most one
// early poll more, and the next few fewer and fewer.
type firstPoll struct {
	min, floor time.Duration
	d          atomic.Int64 // the current wait, a time.Duration
}

func newFirstPoll(minD time.Duration) *firstPoll {
	f := &firstPoll{min: minD, floor: minD / 10}
	f.d.Store(int64(minD))
	return f
}

func (f *firstPoll) wait() time.Duration { return time.Duration(f.d.Load()) }

// saw records what a first poll found.
func (f *firstPoll) saw(done bool) {
	d := f.wait()
	if done {
		d = max(f.floor, d/2)
	} else {
		d = min(f.min, 2*d)
	}
	f.d.Store(int64(d))
}

// taskDelay is the time from a task's (n-1)-th poll to its n-th on the
// schedule: the adaptive first wait, then the schedule's intervals.
func (b backoff) taskDelay(n int) time.Duration {
	if n == 0 && b.first != nil {
		return b.first.wait()
	}
	return b.interval(n)
}

// sawFirst records whether a task's first poll found it done.
func (b backoff) sawFirst(done bool) {
	if b.first != nil {
		b.first.saw(done)
	}
}

// interval is the wait before the n-th poll (n from 0).
func (b backoff) interval(n int) time.Duration {
	d := b.min
	for i := 0; i < n && d < b.max; i++ {
		d *= time.Duration(b.factor)
	}
	if d < b.max {
		return d
	}
	return b.max + rand.N(b.max/5+1)
}

// wait sleeps for the n-th interval or until ctx ends.
func (b backoff) wait(ctx context.Context, n int) error { return Sleep(ctx, b.interval(n)) }

// WaitPoll waits before the n-th (from 0) of a series of reads that watch a
// state change, on the schedule of task polls, or until ctx ends.
func (c *Client) WaitPoll(ctx context.Context, n int) error { return c.poll.wait(ctx, n) }

// Sleep waits d, or until ctx ends (then returns its error).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
