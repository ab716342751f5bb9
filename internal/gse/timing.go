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

// Schedule is one series of polls on b's schedule (a task's, a JOB job's, a
// state watched by wait_running, the re-sends of hosts answered 115),
// counted from the series' start: the time each poll takes (its turn at the
// limiter, the reply) would otherwise push every later one back by as much,
// and a task of 2 s was seen done 0.12 s after it finished instead of 0.1 s.
// A poll that took longer than the next interval is followed at once.
type Schedule struct {
	b    backoff
	due  time.Time
	n    int
	task bool // the first wait is a task's adaptive first poll
}

// schedule starts a series of polls now; task gives it the adaptive first
// wait of a task's polls.
func (b backoff) schedule(task bool) *Schedule {
	return &Schedule{b: b, due: time.Now(), task: task}
}

// Next waits for the series' next poll, or until ctx ends (then returns its error).
func (s *Schedule) Next(ctx context.Context) error {
	d := s.b.interval(s.n)
	if s.n == 0 && s.task && s.b.first != nil {
		d = s.b.first.wait()
	}
	s.n++
	s.due = s.due.Add(d)
	return Sleep(ctx, time.Until(s.due))
}

// Saw records what the poll Next last waited for found: the first poll of a
// task adapts the next tasks' first wait (firstPoll).
func (s *Schedule) Saw(done bool) {
	if s.n == 1 && s.task && s.b.first != nil {
		s.b.first.saw(done)
	}
}

// PollSchedule starts a series of reads that watch a state change, on the
// schedule of task polls.
func (c *Client) PollSchedule() *Schedule { return c.poll.schedule(false) }

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
