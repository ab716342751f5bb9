package gse

import (
	"context"
	"slices"
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

// seeAt runs one task's polls on b's schedule with a context already ended
// (each poll is taken at once) and says the task is done at poll done (from
// 1); it returns the waits before each poll.
func seeAt(b backoff, done int) []time.Duration {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	sched := b.schedule(true)
	var waits []time.Duration
	prev := sched.start
	for n := 1; n <= done; n++ {
		_ = sched.Next(ended)
		waits = append(waits, sched.due.Sub(prev))
		prev = sched.due
		sched.Saw(n == done)
	}
	return waits
}

// The first poll's wait halves for each task seen done at its first poll,
// down to a tenth of the schedule's first interval; a task seen done later
// moves it to the middle of the interval it ended in, never past the
// unlearned schedule's third poll, and the polls after a learned first one step by min·2ⁿ; a task seen
// done at a learned first poll brings it forward by an eighth.
func TestFirstPollLearns(t *testing.T) {
	b := newBackoff(100*time.Millisecond, 5*time.Second)
	ms := time.Millisecond
	var got []time.Duration
	for range 5 {
		seeAt(b, 1)
		got = append(got, b.first.wait())
	}
	if want := []time.Duration{50 * ms, 25 * ms, 12500 * time.Microsecond, 10 * ms, 10 * ms}; !slices.Equal(got, want) {
		t.Fatalf("fast tasks: first waits %v, want %v", got, want)
	}
	// Pending at 10 ms, seen at the unlearned schedule's next poll, 400 ms later.
	if w := seeAt(b, 2); !slices.Equal(w, []time.Duration{10 * ms, 400 * ms}) || b.first.wait() != 210*ms {
		t.Fatalf("a slow task after fast ones: waits %v, then first wait %v; want [10ms 400ms], 210ms", w, b.first.wait())
	}
	if seeAt(b, 1); b.first.wait() != 210*ms-210*ms/8 {
		t.Fatalf("done at a learned first poll: first wait %v, want %v", b.first.wait(), 210*ms-210*ms/8)
	}
	first := b.first.wait()
	if w := seeAt(b, 4); !slices.Equal(w, []time.Duration{first, 100 * ms, 200 * ms, 400 * ms}) || b.first.wait() != first+500*ms {
		t.Fatalf("pending at a learned first poll: waits %v, then first wait %v; want [%v 100ms 200ms 400ms], %v", w, b.first.wait(), first, first+500*ms)
	}
	if seeAt(b, 8); b.first.wait() != 2100*ms {
		t.Fatalf("a long task: first wait %v, want the unlearned third poll's 2.1s", b.first.wait())
	}
}

// What a process learned of an installation's tasks is where the next
// process's first poll starts; another kind of task, or another
// installation, starts unlearned.
func TestFirstPollRemembered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	remembering := func(key string) backoff {
		return newBackoff(100*time.Millisecond, 5*time.Second).withMemory(newPollMemory(dir, key))
	}
	b := remembering("https://esb.example.com|job")
	seeAt(b, 2) // pending at 100 ms, seen done 400 ms later
	learned := b.first.wait()
	if learned != 300*time.Millisecond {
		t.Fatalf("learned first wait %v, want 300ms", learned)
	}
	if got := remembering("https://esb.example.com|job").first.wait(); got != learned {
		t.Errorf("the next process starts at %v, want the remembered %v", got, learned)
	}
	for _, key := range []string{"https://esb.example.com|task", "https://other.example.com|job"} {
		if got := remembering(key).first.wait(); got != 100*time.Millisecond {
			t.Errorf("%s starts at %v, want the unlearned 100ms", key, got)
		}
	}
}
