package gse

import (
	"context"
	"testing"
	"time"
)

// pollsToSee counts the polls of schedule b that a task lasting l needs, on a
// fake clock: the first poll whose time is at or past l sees it done.
func pollsToSee(b backoff, l time.Duration) (polls int, late time.Duration) {
	var at time.Duration
	for n := 0; ; n++ {
		at += b.interval(n)
		if at >= l {
			return n + 1, at - l
		}
	}
}

// The request budget of issue 6 at task latency L = 2 s: a create is one
// register, one submit and the polls (≤ 6 requests, goal 4), so the task must
// be seen within 3 polls, and at most 0.2 s late ((apply − terraform_data)/L ≤ 1.15).
func TestPollScheduleBudget(t *testing.T) {
	b := newBackoff(100*time.Millisecond, 5*time.Second)
	polls, late := pollsToSee(b, 2*time.Second)
	if polls != 3 || late > 200*time.Millisecond {
		t.Fatalf("L = 2s: %d polls, %v late; want 3 polls, ≤ 200ms late", polls, late)
	}
	for _, tc := range []struct {
		l     time.Duration
		polls int
	}{{50 * time.Millisecond, 1}, {100 * time.Millisecond, 1}, {300 * time.Millisecond, 2}, {500 * time.Millisecond, 2}, {time.Second, 3}, {2100 * time.Millisecond, 3}} {
		if got, _ := pollsToSee(b, tc.l); got != tc.polls {
			t.Errorf("L = %v: %d polls, want %d", tc.l, got, tc.polls)
		}
	}
	// Past the cap a poll comes every 5 to 6 s: a 60 s task takes at most 3 + 12 polls.
	if got, _ := pollsToSee(b, time.Minute); got > 15 {
		t.Errorf("L = 1m: %d polls", got)
	}
}

// The first poll's wait halves for each task seen done at its first poll,
// down to a tenth of the schedule's first interval, and doubles back for each
// seen pending, never past it: slow tasks keep the schedule above.
func TestFirstPollAdapts(t *testing.T) {
	b := newBackoff(100*time.Millisecond, 5*time.Second)
	ended, cancel := context.WithCancel(context.Background())
	cancel() // each task's first poll is taken at once
	var got []time.Duration
	for _, done := range []bool{true, true, true, true, true, false, false, false, false, false} {
		sched := b.schedule(true)
		_ = sched.Next(ended)
		sched.Saw(done)
		_ = sched.Next(ended)
		sched.Saw(!done) // what a later poll of the task finds adapts nothing
		got = append(got, b.first.wait())
	}
	ms := time.Millisecond
	want := []time.Duration{50 * ms, 25 * ms, 12500 * time.Microsecond, 10 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 100 * ms, 100 * ms}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("first waits %v, want %v", got, want)
		}
	}
}
