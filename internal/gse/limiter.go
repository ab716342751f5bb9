package gse

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// One BlueKing installation limits each app, whoever calls for it, and
// several Terraform runs (each its own provider process) often call for the
// same app at once. Every request of a process waits for one Limiter before
// each attempt (Client.logAttempt, outside the attempt's timeout), so a
// refusal slows every call of the process, not only the one refused.
//
// By default the rate adapts as TCP's congestion control and aws's
// retry_mode = "adaptive" do, so that processes that never talk to each other
// converge on sharing the quota:
//   - it starts at adaptiveStart requests/s and doubles every
//     slowStartDoubling while the process uses it (slow start), until the
//     first refusal, or until the rate a recent refusal cut an earlier
//     process to (newPaceMemory). Several runs starting together overshoot the
//     quota within a second and are cut at their first refusal; a run alone
//     is not held back for long. It starts low, not unlimited as aws's
//     adaptive mode does, because each phase of a run (plan, apply, destroy)
//     is a new process that starts over, and its first burst would be
//     refused every time;
//   - a refusal cuts it to adaptiveBeta of the rate the installation served
//     the process lately, at most once per adaptiveCooldown (the refusals of
//     one burst are one signal). What was served, not what was sent: when
//     every process overshoots together, each is served about its share, so
//     one cut brings them all under the quota;
//   - after that it grows by adaptiveGrowth of itself per second (at least
//     adaptiveFloor), doubling that for every adaptiveQuiet without a
//     refusal (runs left alone take back the quota the others no longer
//     use);
//   - growing or not, unless requests wait for tokens it stays below twice
//     what the process was served lately: an idle process does not bank a
//     rate it would then burst at.
//
// In steady state, N processes sharing a quota together grow by about
// adaptiveGrowth of it per second and each refusal takes back
// (1-adaptiveBeta) of one share, so they see about
// adaptiveGrowth·N/(1-adaptiveBeta) refusals per second: 0.3 for 6 runs.
//
// A fixed rate (Config.RateLimit) is kept whatever the answers.
const (
	adaptiveStart = 2.0 // requests/s; six processes start at 12/s together
	adaptiveBurst = 2
	// burstSpan is how much of its rate an adaptive limiter lets go at once:
	// Terraform starts up to ten resources together, and with a burst of
	// adaptiveBurst the last requests of such a wave would wait for tokens,
	// in every wave. A tenth of a second of the rate is well within the
	// second's worth the installations' token buckets allow.
	burstSpan         = 100 * time.Millisecond
	slowStartDoubling = 25 * time.Millisecond // until the first refusal the rate doubles this often
	adaptiveMin       = 0.5                   // requests/s, the floor of a cut
	adaptiveBeta      = 0.6
	adaptiveGrowth    = 0.02             // of the rate, per second
	adaptiveFloor     = 0.05             // requests/s per second: the least growth
	adaptiveQuiet     = 10 * time.Second // the growth doubles for each of these without a refusal
	adaptiveCooldown  = time.Second
	servedWindow      = time.Second            // the served rate is over the last one
	limiterRecheck    = 100 * time.Millisecond // how often a waiting request looks at the rate again
)

// Limiter paces requests, at a fixed rate or an adaptive one. It is safe for
// concurrent use; clients for one app on one installation share one.
type Limiter struct {
	mu    sync.Mutex
	lim   *rate.Limiter
	turn  chan struct{} // held by the request whose turn it is
	fixed bool
	now   func() time.Time // time.Now; tests move it

	rate          float64 // requests/s, adaptive
	slowStart     bool
	threshold     float64          // the slow start ends here (0: at the first refusal); see newPaceMemory
	memory        *memory[float64] // where a cut is remembered for the next process (nil: nowhere)
	updated, cut  time.Time
	answers       []time.Time // when requests were answered other than by a refusal, over the last servedWindow
	first         time.Time   // the first request (zero before)
	since         time.Time
	sent, refused int
	lastCode      int       // the latest refusal's code (or HTTP status)
	lastRefused   time.Time // when the latest refusal came
	waiting       int       // requests waiting their turn now
	blocked       bool      // the request whose turn it is found no token: demand is above the rate
}

// NewLimiter paces at rps requests per second, or adaptively when rps is 0.
func NewLimiter(rps float64) *Limiter { return newLimiter(rps, time.Now) }

// withMemory makes an adaptive l slow-start only up to the rate m remembers,
// and remember its cuts there.
func (l *Limiter) withMemory(m *memory[float64]) *Limiter {
	if !l.fixed && m != nil {
		l.memory = m
		if cut, ok := m.recall(l.now()); ok && cut > 0 {
			l.threshold = cut
		}
	}
	return l
}

// newLimiterAt is an adaptive limiter past its slow start, at rps.
func newLimiterAt(rps float64) *Limiter {
	l := newLimiter(0, time.Now)
	l.slowStart = false
	l.set(max(rps, adaptiveMin))
	return l
}

func newLimiter(rps float64, now func() time.Time) *Limiter {
	t := now()
	l := &Limiter{now: now, since: t, updated: t, cut: t.Add(-adaptiveCooldown), turn: make(chan struct{}, 1)} // a refusal may cut at once
	if rps > 0 {
		l.fixed, l.rate = true, rps
		l.lim = rate.NewLimiter(rate.Limit(rps), 1) // evenly spaced: no burst to spill over another run's share
		return l
	}
	l.rate, l.slowStart = adaptiveStart, true
	l.lim = rate.NewLimiter(rate.Limit(adaptiveStart), adaptiveBurst)
	return l
}

// Wait blocks until a request may be sent, or ctx ends.
func (l *Limiter) Wait(ctx context.Context) error {
	l.mu.Lock()
	l.sent++
	if l.first.IsZero() {
		l.first = l.now()
	}
	l.waiting++
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.waiting--
		l.mu.Unlock()
	}()
	// Not rate.Limiter.Wait, nor a reservation: both fix the time of the
	// request when it starts waiting, so requests queued behind a low rate
	// would keep their late turns after the rate has grown again (a run
	// starves with its quota unused), and Wait fails at once when the turn
	// would pass the deadline. Waiters queue in turn (a channel serves
	// blocked senders first come, first served), and the first takes a token
	// when there is one, looking again soon at the rate of the moment.
	select {
	case l.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-l.turn }()
	for {
		took, recheck := l.look()
		if took {
			return nil
		}
		wait := time.Duration((1 - l.lim.Tokens()) / float64(l.lim.Limit()) * float64(time.Second))
		// A token due soon is waited for exactly: jitter there would cap the
		// rate below the limit. A long wait looks at the rate again after
		// limiterRecheck, jittered, or as often as the slow start doubles it.
		d := max(wait, time.Millisecond)
		if d >= recheck {
			d = recheck + rand.N(recheck/4)
		}
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		}
	}
}

// look brings an adaptive rate to the moment, takes a token if there is one,
// and records whether requests now wait for tokens (grow); a request still
// waiting should look again after recheck. The rate grows at every look, not
// only as a request arrives: requests that queued together (ten refreshes as
// a plan starts) would otherwise wait at the rate of their arrival, the slow
// start's first, each for the one before it.
func (l *Limiter) look() (took bool, recheck time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	recheck = limiterRecheck
	if !l.fixed {
		l.grow(l.now())
		if l.slowStart {
			recheck = slowStartDoubling
		}
	}
	took = l.lim.Allow()
	l.blocked = !took
	return took, recheck
}

// grow raises the adaptive rate for the time since the last update.
func (l *Limiter) grow(t time.Time) {
	dt := t.Sub(l.updated).Seconds()
	l.updated = t
	if dt <= 0 {
		return
	}
	quiet := math.Pow(2, t.Sub(l.cut).Seconds()/adaptiveQuiet.Seconds())
	r := l.rate + max(adaptiveFloor, l.rate*adaptiveGrowth)*min(quiet, 64)*dt
	if l.slowStart {
		r = l.rate * math.Exp2(dt/slowStartDoubling.Seconds())
		if l.threshold > 0 && r >= l.threshold {
			r, l.slowStart = max(l.rate, l.threshold), false
		}
	}
	if !l.blocked {
		// Idle or keeping up, the process may not bank a rate it would
		// then burst at. While requests wait for tokens, their demand is
		// the bound, not what was served: served is over the last second,
		// so it lags a slow start by most of it and would hold the waiting
		// requests back.
		r = min(r, max(l.rate, adaptiveStart, 2*l.served(t)))
	}
	l.set(r)
}

// Served records an answer that was not a refusal for the rate limit.
func (l *Limiter) Served() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.fixed {
		l.answers = append(l.answers, l.now())
	}
}

// served is the rate of answers other than refusals over the last
// servedWindow, or since the first request when that is more recent.
func (l *Limiter) served(t time.Time) float64 {
	from := t.Add(-servedWindow)
	i := 0
	for i < len(l.answers) && l.answers[i].Before(from) {
		i++
	}
	l.answers = l.answers[i:]
	span := min(servedWindow, t.Sub(l.first))
	if len(l.answers) == 0 || span <= 0 {
		return 0
	}
	return float64(len(l.answers)) / span.Seconds()
}

// Throttled records an answer refused for the rate limit, with its code.
func (l *Limiter) Throttled(code int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refused++
	l.lastCode = code
	t := l.now()
	l.lastRefused = t
	if l.fixed || t.Sub(l.cut) < adaptiveCooldown {
		return
	}
	l.grow(t)
	base := l.rate
	if served := l.served(t); served > 0 {
		base = min(base, served)
	}
	l.cut, l.slowStart = t, false
	l.set(max(adaptiveMin, base*adaptiveBeta))
	l.memory.remember(l.rate, t)
}

func (l *Limiter) set(r float64) {
	l.rate = r
	l.lim.SetLimit(rate.Limit(r))
	if !l.fixed {
		l.lim.SetBurst(max(adaptiveBurst, int(r*burstSpan.Seconds())))
	}
}

// Rate is the current rate, in requests per second.
func (l *Limiter) Rate() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rate
}

// Throttling is what a Limiter saw: requests sent through it and refused
// for the rate limit since it was made, and the latest refusal's code.
type Throttling struct {
	Sent, Refused int
	Code          int
	For           time.Duration
	Rate          float64 // requests/s when it was read
	Fixed         bool
	Waiting       int       // requests waiting their turn when it was read
	LastRefused   time.Time // when the latest refusal came (zero: none)
}

func (t Throttling) String() string {
	mode := "adaptive"
	if t.Fixed {
		mode = "fixed"
	}
	return fmt.Sprintf("the installation refused %d of the %d requests sent in %s for the app's rate limit (code %d); the client's %s rate is %.1f requests/s",
		t.Refused, t.Sent, t.For.Round(time.Second), t.Code, mode, t.Rate)
}

// Throttling reports what l saw so far.
func (l *Limiter) Throttling() Throttling {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Throttling{Sent: l.sent, Refused: l.refused, Code: l.lastCode, For: l.now().Sub(l.since), Rate: l.rate, Fixed: l.fixed, Waiting: l.waiting, LastRefused: l.lastRefused}
}
