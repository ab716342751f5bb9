package gse

import (
	"os"
	"testing"
	"time"
)

// A cut is remembered for the next process of the app on the root: its slow
// start stops at that rate, then it grows as after a cut. Another app, or a
// memory older than paceMemoryTTL, leaves the slow start unbounded.
func TestPaceMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := &clock{t: time.Unix(1e9, 0)}
	first := newLimiter(0, c.now).withMemory(newPaceMemory(dir, "https://esb.example.com|app"))
	first.first = c.t
	for range 20 {
		first.answers = append(first.answers, c.t)
	}
	first.set(20)
	first.Throttled(1306429)
	cut := first.Rate()
	if cut >= 20 {
		t.Fatalf("the refusal did not cut: %.2f", cut)
	}

	// slowStart grows a new limiter of the memory in steps of 100 ms, the
	// installation serving all it sends, and returns its rate after 1 s and
	// whether it is still in its slow start.
	slowStart := func(dir, key string, at time.Time) (float64, bool) {
		c := &clock{t: at}
		l := newLimiter(0, c.now).withMemory(newPaceMemory(dir, key))
		l.first = c.t
		for range 10 {
			c.t = c.t.Add(100 * time.Millisecond)
			for range 100 {
				l.answers = append(l.answers, c.t)
			}
			l.grow(c.t)
		}
		return l.rate, l.slowStart
	}
	if r, slow := slowStart(dir, "https://esb.example.com|app", c.t.Add(time.Minute)); slow || r < cut || r > 2*cut {
		t.Errorf("the next process: rate %.2f (slow start %v), want it to leave the slow start at the remembered %.2f and grow slowly", r, slow, cut)
	}
	for name, p := range map[string]struct {
		key string
		at  time.Time
	}{
		"another app": {"https://esb.example.com|other", c.t.Add(time.Minute)},
		"stale":       {"https://esb.example.com|app", c.t.Add(paceMemoryTTL + time.Second)},
	} {
		if r, slow := slowStart(dir, p.key, p.at); !slow || r < 100 {
			t.Errorf("%s: rate %.2f (slow start %v), want an unbounded slow start", name, r, slow)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("memory files %v (%v), want one", entries, err)
	}
}
