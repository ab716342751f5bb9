package gse

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryBackoffHonoursServerWait(t *testing.T) {
	resp := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"3"}}}
	if d := retryBackoff(time.Second, 30*time.Second, 0, resp); d != 3*time.Second {
		t.Fatalf("Retry-After: %v", d)
	}
	resp.Header = http.Header{"X-Bkapi-Ratelimit-Reset": {"7"}}
	if d := retryBackoff(time.Second, 30*time.Second, 0, resp); d != 7*time.Second {
		t.Fatalf("X-Bkapi-RateLimit-Reset: %v", d)
	}
	for attempt := range 10 {
		d := retryBackoff(time.Second, 8*time.Second, attempt, nil)
		step := min(time.Second<<attempt, 8*time.Second)
		if d < step/2 || d > step {
			t.Fatalf("attempt %d: %v outside [%v, %v]", attempt, d, step/2, step)
		}
	}
}

// The poll schedule: deterministic ×4 steps from 100 ms, jitter (upwards only) at the 5 s cap.
func TestPollIntervalGrowsToCap(t *testing.T) {
	b := newBackoff(100*time.Millisecond, 5*time.Second)
	for n, want := range []time.Duration{100 * time.Millisecond, 400 * time.Millisecond, 1600 * time.Millisecond} {
		if d := b.interval(n); d != want {
			t.Fatalf("interval %d = %v, want %v", n, d, want)
		}
	}
	for n := 3; n < 40; n++ {
		if d := b.interval(n); d < 5*time.Second || d > 6*time.Second {
			t.Fatalf("capped interval %d = %v", n, d)
		}
	}
}
