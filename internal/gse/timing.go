package gse

import (
	"context"
	"math/rand/v2"
	"sync"
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
// That is the schedule of a task of a kind not seen yet. Once tasks of the
// kind have been seen done, the first poll comes when they were (firstPoll),
// and the polls after it every min, 2·min, 4·min…: a task of 1 s, which the
// ×4 schedule sees at 2.1 s, is seen within a tenth of a second of its end,
// in one or two polls, which is what a rollout of many batches of one task
// each needs.
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
	return backoff{min: minD, max: maxD, factor: 4, first: newFirstPoll(minD, maxD)}
}

// firstPoll learns how soon the installation finishes tasks of one kind (GSE
// tasks, JOB jobs), and puts a task's first poll there:
//   - a first poll that finds the task done brings the next first wait
//     forward: it halves while it is at most min, down to a tenth of min, so
//     tasks that finish at once (an operation on hosts whose agent answers
//     within milliseconds) cost one poll some 10 ms after the submit instead
//     of min (bench-e2e's many row); above min it shrinks by an eighth, to
//     find tasks getting faster without falling back to the unlearned
//     schedule;
//   - a task first found pending and seen done later moves the next first
//     wait to the middle of the last interval, between the poll that last
//     found it pending and the one that found it done: the tasks of one run
//     take about as long (a GSE task, a JOB job at the installation's pace),
//     so the next one is seen in one or two polls. It is never later than
//     the third poll of the unlearned schedule (2.1 s by default), so a fast
//     task after slow ones waits at most that.
//
// The wait is remembered for the next processes (newPollMemory), rewritten
// when it moves by more than a quarter or its record ages past pollRewrite.
type firstPoll struct {
	min, floor, ceil time.Duration
	d                atomic.Int64 // the current wait, a time.Duration
	memory           *memory[time.Duration]
	mu               sync.Mutex
	written          time.Duration // the wait last remembered, and when
	writtenAt        time.Time
}

// pollRewrite is how old the remembered wait may grow before it is written
// again unchanged, well within pollMemoryTTL.
const pollRewrite = time.Minute

func newFirstPoll(minD, maxD time.Duration) *firstPoll {
	f := &firstPoll{min: minD, floor: minD / 10, ceil: min(maxD, minD*(1+4+16))}
	f.d.Store(int64(minD))
	return f
}

// withMemory makes b's first polls start from, and keep in m, what the
// installation's tasks of b's kind taught the last process.
func (b backoff) withMemory(m *memory[time.Duration]) backoff {
	if m == nil {
		return b
	}
	f := b.first
	f.memory = m
	if d, ok := m.recall(time.Now()); ok {
		f.d.Store(int64(min(f.ceil, max(f.floor, d))))
		f.written, f.writtenAt = d, time.Now()
	}
	return b
}

func (f *firstPoll) wait() time.Duration { return time.Duration(f.d.Load()) }

// set makes d the first wait, and remembers it when it moved by more than a
// quarter from the wait remembered or that record is old.
func (f *firstPoll) set(d time.Duration) {
	f.d.Store(int64(d))
	if f.memory == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	if w := f.written; d > w+w/4 || d < w-w/4 || now.Sub(f.writtenAt) > pollRewrite {
		f.written, f.writtenAt = d, now
		f.memory.remember(d, now)
	}
}

// learned reports whether the first wait comes from tasks seen pending
// (above min), which is when the polls after it step by min·2ⁿ.
func (f *firstPoll) learned() bool { return f.wait() > f.min }

// seenAtFirst records a task its first poll, after waiting waited, found done.
func (f *firstPoll) seenAtFirst(waited time.Duration) {
	if waited <= f.min {
		f.set(max(f.floor, waited/2))
		return
	}
	f.set(max(f.min, waited-waited/8))
}

// seenLater records a task first found pending, found pending last after
// pending and seen done after done.
func (f *firstPoll) seenLater(pending, done time.Duration) {
	f.set(min(f.ceil, max(f.min, (pending+done)/2)))
}

// interval is the wait before the n-th poll (n from 0) of the unlearned schedule.
func (b backoff) interval(n int) time.Duration {
	d := b.min
	for i := 0; i < n && d < b.max; i++ {
		d *= time.Duration(b.factor)
	}
	return b.capped(d)
}

// capped is d, or the cap with its jitter once d reaches it.
func (b backoff) capped(d time.Duration) time.Duration {
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
	b               backoff
	start, due, was time.Time // was: the due time of the poll before the last
	n               int
	task            bool // the first wait is a task's learned first poll
	learned         bool // that first wait was learned: the polls after it step by min·2ⁿ
}

// schedule starts a series of polls now; task gives it the learned first
// wait of a task's polls.
func (b backoff) schedule(task bool) *Schedule {
	now := time.Now()
	return &Schedule{b: b, start: now, due: now, task: task}
}

// Next waits for the series' next poll, or until ctx ends (then returns its error).
func (s *Schedule) Next(ctx context.Context) error {
	var d time.Duration
	switch {
	case s.n == 0 && s.task && s.b.first != nil:
		s.learned = s.b.first.learned()
		d = s.b.first.wait()
	case s.learned:
		d = s.b.capped(s.b.min << min(s.n-1, 30))
	default:
		d = s.b.interval(s.n)
	}
	s.n++
	s.was, s.due = s.due, s.due.Add(d)
	return Sleep(ctx, time.Until(s.due))
}

// Saw records what the poll Next last waited for found: a task's polls
// teach its kind's first wait (firstPoll).
func (s *Schedule) Saw(done bool) {
	if !done || !s.task || s.b.first == nil {
		return
	}
	if s.n == 1 {
		s.b.first.seenAtFirst(s.due.Sub(s.start))
		return
	}
	s.b.first.seenLater(s.was.Sub(s.start), s.due.Sub(s.start))
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
