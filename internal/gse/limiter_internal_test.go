package gse

import (
	"testing"
	"time"
)

// clock is a time the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestAdaptiveRate(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	l := newLimiter(0, c.now)
	l.demand = 10 // the process asks for 10 requests/s
	check := func(step string, want float64) {
		t.Helper()
		if got := l.Rate(); got < want-1e-9 || got > want+1e-9 {
			t.Fatalf("%s: rate %.3f, want %.3f", step, got, want)
		}
	}
	check("start", adaptiveStart)
	c.t = c.t.Add(time.Second)
	l.grow(c.t)
	check("slow start doubles each second", 2*adaptiveStart)
	l.Throttled(1306429)
	check("a refusal cuts it", 2*adaptiveStart*adaptiveBeta)
	c.t = c.t.Add(adaptiveCooldown / 2)
	l.Throttled(1306429)
	check("refusals of one burst cut once", 2*adaptiveStart*adaptiveBeta)
	c.t = c.t.Add(10 * time.Second)
	l.grow(c.t)
	after := 2*adaptiveStart*adaptiveBeta + adaptiveIncrease*(adaptiveCooldown.Seconds()/2+10)
	check("then it grows additively", after)
	l.demand = 1
	c.t = c.t.Add(100 * time.Second)
	l.grow(c.t)
	check("an idle process does not bank a rate", after)
	l.demand = 0.1
	for range 20 {
		c.t = c.t.Add(2 * adaptiveCooldown)
		l.Throttled(1642901)
	}
	check("cuts stop at the floor", adaptiveMin)
	if th := l.Throttling(); th.Refused != 22 || th.Code != 1642901 || th.Fixed {
		t.Fatalf("throttling %+v", th)
	}
}

func TestFixedRateKeepsItsRate(t *testing.T) {
	l := NewLimiter(5)
	l.Throttled(1306429)
	if th := l.Throttling(); th.Rate != 5 || th.Refused != 1 || !th.Fixed {
		t.Fatalf("throttling %+v", th)
	}
}

func TestSharedLimiterPerAppAndInstallation(t *testing.T) {
	cfg := Config{Endpoint: "https://paas.example.com", AppCode: "shared-a"}
	a, b := sharedLimiter(cfg), sharedLimiter(cfg)
	other := cfg
	other.AppCode = "shared-b"
	fixed := cfg
	fixed.RateLimit = 3
	if a != b || a == sharedLimiter(other) || a == sharedLimiter(fixed) {
		t.Fatal("clients of one app on one installation at one rate must share one limiter, and only they")
	}
}
