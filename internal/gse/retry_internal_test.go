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

func TestPollIntervalGrowsToCap(t *testing.T) {
	b := backoff{min: 500 * time.Millisecond, max: 5 * time.Second}
	if d := b.interval(0); d < 400*time.Millisecond || d > 600*time.Millisecond {
		t.Fatalf("first poll after %v", d)
	}
	if d := b.interval(20); d < 4*time.Second || d > 6*time.Second {
		t.Fatalf("capped poll after %v", d)
	}
}
