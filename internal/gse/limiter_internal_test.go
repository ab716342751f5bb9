package gse

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"
)

// clock is a time the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestAdaptiveRate(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	l := newLimiter(0, c.now)
	l.first = c.t
	// serve sets the rate served over the last second to n requests/s.
	serve := func(n int) {
		l.answers = l.answers[:0]
		for range n {
			l.answers = append(l.answers, c.t)
		}
	}
	step := func(d time.Duration) float64 {
		c.t = c.t.Add(d)
		serve(len(l.answers)) // the served rate stays what the test set
		l.grow(c.t)
		return l.rate
	}
	if l.rate != adaptiveStart {
		t.Fatalf("start: %.2f", l.rate)
	}
	serve(10)
	if r := step(slowStartDoubling); math.Abs(r-2*adaptiveStart) > 1e-9 {
		t.Fatalf("slow start: %.2f after %v, want %.2f", r, slowStartDoubling, 2*adaptiveStart)
	}
	if r := step(time.Second); r != 20 {
		t.Fatalf("slow start: %.2f, want twice the 10 requests/s served", r)
	}
	l.blocked = true // requests wait for tokens: their demand bounds the rate, not what was served
	if r := step(slowStartDoubling); r != 40 {
		t.Fatalf("slow start with requests waiting: %.2f, want it doubled past twice the 10 requests/s served", r)
	}
	l.blocked = false
	serve(2) // the installation served less than the process sent
	l.Throttled(1306429)
	cut := l.rate
	if math.Abs(cut-adaptiveBeta*2) > 1e-9 {
		t.Fatalf("a refusal cut the rate to %.2f, want %.2f of what was served", cut, adaptiveBeta)
	}
	c.t = c.t.Add(adaptiveCooldown / 2)
	l.Throttled(1306429)
	if l.rate != cut {
		t.Fatalf("a second refusal of the same burst cut again: %.2f", l.rate)
	}
	if grown := step(10*time.Second) - cut; grown < adaptiveFloor*10-1e-9 {
		t.Fatalf("after the cut the rate grew by %.2f in 10 s, want at least %.2f", grown, adaptiveFloor*10)
	}
	l.set(50) // a large share, well used, grows in proportion
	serve(100)
	if grown := step(time.Second) - 50; grown < 50*adaptiveGrowth-1e-9 {
		t.Fatalf("a rate of 50 grew by %.2f in a second, want at least %.2f", grown, 50*adaptiveGrowth)
	}
	serve(0)
	before := l.rate
	if r := step(100 * time.Second); r != before {
		t.Fatalf("an idle process banked a rate: %.2f, was %.2f", r, before)
	}
	for range 20 {
		c.t = c.t.Add(2 * adaptiveCooldown)
		l.Throttled(1642901)
	}
	if l.rate != adaptiveMin {
		t.Fatalf("cuts went to %.2f, want the floor %.2f", l.rate, adaptiveMin)
	}
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

func TestSharedPacerPerAppAndRoot(t *testing.T) {
	cfg := Config{Endpoint: "https://paas.example.com", AppCode: "shared-a"}
	root := "https://paas.example.com"
	a, b := sharedPacer(cfg, root), sharedPacer(cfg, root)
	other := cfg
	other.AppCode = "shared-b"
	fixed := cfg
	fixed.RateLimit = 3
	if a != b || a == sharedPacer(other, root) || a == sharedPacer(fixed, root) || a == sharedPacer(cfg, "https://bkapi.example.com/api/bk-gse/prod") {
		t.Fatal("clients of one app on one root at one rate must share one pacer, and only they")
	}
}

// A refusal by one resource's limit (1642903) slows that API alone; one by
// the app's limit on the stage (1642902) slows every API of the root.
func TestPacerBuckets(t *testing.T) {
	p := &pacer{root: NewLimiter(0), resources: map[string]*Limiter{}}
	p.root.set(100)
	p.throttled("get_proc_status_v2", codeGatewayResourceLimit)
	if p.root.Rate() != 100 {
		t.Errorf("a resource's refusal cut the root's rate to %v", p.root.Rate())
	}
	if r := p.resource("get_proc_status_v2", false); r == nil || r.Rate() >= 100 {
		t.Fatalf("the refused resource has no limiter of its own, or it was not cut: %v", r)
	}
	if p.resource("operate_proc_multi", false) != nil {
		t.Error("an API never refused got a limiter of its own")
	}
	p.throttled("operate_proc_multi", codeGatewayAppStageLimit)
	if p.root.Rate() >= 100 {
		t.Errorf("a stage refusal left the root's rate at %v", p.root.Rate())
	}
	if th := p.throttling(); th.Refused != 2 || th.Code != codeGatewayAppStageLimit {
		t.Errorf("throttling %+v, want both refusals, the latest code", th)
	}
}

// Requests that queue together at the start (a plan refreshing ten
// resources) grow the slow start while they wait: they were held at
// adaptiveStart, each half a second after the one before it.
func TestSlowStartGrowsWhileQueued(t *testing.T) {
	t.Parallel()
	l := NewLimiter(0)
	const n = 10
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Wait(context.Background()); err != nil {
				t.Error(err)
			}
			l.Served()
		}()
	}
	wg.Wait()
	if r := l.Rate(); r < 2*adaptiveStart {
		t.Fatalf("after %d queued requests the rate is %.2f requests/s, want the slow start past %.0f", n, r, 2*adaptiveStart)
	}
}

// An adaptive limiter lets a tenth of a second of its rate go at once (a wave
// of ten requests at 100 requests/s), never less than adaptiveBurst; a fixed
// one spaces every request.
func TestBurstFollowsTheRate(t *testing.T) {
	t.Parallel()
	l := NewLimiter(0)
	for _, c := range []struct {
		rate  float64
		burst int
	}{{100, 10}, {5, adaptiveBurst}, {1000, 100}} {
		l.set(c.rate)
		if b := l.lim.Burst(); b != c.burst {
			t.Errorf("at %.0f requests/s the burst is %d, want %d", c.rate, b, c.burst)
		}
	}
	if b := NewLimiter(50).lim.Burst(); b != 1 {
		t.Errorf("a fixed rate bursts %d, want 1", b)
	}
}
