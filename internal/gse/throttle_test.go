package gse_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// statusCalls makes n status reads at once and returns their errors.
func statusCalls(ctx context.Context, c *gse.Client, n int) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1})
		}()
	}
	wg.Wait()
	return errs
}

// Refusals for the quota are not faults: with no retry allowed for faults,
// calls sent faster than the quota are all served in the end.
func TestThrottledCallsRetryUntilServed(t *testing.T) {
	t.Parallel()
	for _, gateway := range []bool{false, true} {
		tune := func(cfg *gse.Config) { cfg.MaxRetries, cfg.RateLimit = 0, 100 }
		var c *gse.Client
		var sim *simulator.Server
		if gateway {
			c, sim, _ = newGateway(t, simulator.Options{}, tune)
		} else {
			c, sim, _ = newClientWith(t, simulator.Options{}, tune)
		}
		sim.SetQuota(10, 1)
		for i, err := range statusCalls(ctxTimeout(t, 20*time.Second), c, 10) {
			if err != nil {
				t.Errorf("gateway %v, call %d: %v", gateway, i, err)
			}
		}
		refused := sim.AllCalls()[simulator.RateLimitedKey]
		if refused == 0 || c.Throttling().Refused != refused {
			t.Errorf("gateway %v: the simulator refused %d requests, the client saw %+v", gateway, refused, c.Throttling())
		}
	}
}

// One refusal slows every call of the client, and of the clients configured alike.
func TestRefusalSlowsTheWholeProcess(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{}, func(cfg *gse.Config) { cfg.RateLimit = 0 })
	start := c.Throttling().Rate
	sim.AddFault(simulator.Fault{API: "get_proc_status_v2", Code: gse.CodeESBRateLimited})
	if _, err := c.Proc.GetProcStatusV2(ctxTimeout(t, 10*time.Second), meta, []gse.Host{host1}); err != nil {
		t.Fatal(err)
	}
	if th := c.Throttling(); th.Refused != 1 || th.Code != gse.CodeESBRateLimited || th.Rate >= start {
		t.Fatalf("after one refusal: %+v, want the rate below %.1f", th, start)
	}
}

// When the deadline comes while the installation refuses, the error says so:
// the code, how often, and the last refusal.
func TestDeadlineWhileThrottled(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{}, func(cfg *gse.Config) { cfg.MaxRetries = 0 })
	sim.AddFault(simulator.Fault{API: "get_proc_status_v2", Code: gse.CodeESBRateLimited, Message: "Request rate exceeds the limit", Times: simulator.Forever})
	_, err := c.Proc.GetProcStatusV2(ctxTimeout(t, 300*time.Millisecond), meta, []gse.Host{host1})
	var ie *gse.InterruptedError
	if !errors.As(err, &ie) || ie.Throttling == nil || !errors.Is(err, context.DeadlineExceeded) || gse.KindOf(err) != gse.KindRateLimited {
		t.Fatalf("err = %v", err)
	}
	// Every refusal received is counted; the last request may have been
	// refused by the server after the deadline cut the client's wait short.
	n := sim.Calls("get_proc_status_v2")
	if n < 2 || (ie.Throttling.Refused != n && ie.Throttling.Refused != n-1) {
		t.Fatalf("%d requests, throttling %+v: the refusals were not retried or not counted", n, ie.Throttling)
	}
	for _, want := range []string{"throttling the calls", "refused", "(code 1306429)", "Request rate exceeds the limit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to say %q", err, want)
		}
	}
}

// The wait for the limiter is not part of an attempt's timeout: requests
// queued longer than request_timeout are still sent, and in turn.
func TestLimiterWaitOutsideRequestTimeout(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{}, func(cfg *gse.Config) {
		cfg.RateLimit, cfg.RequestTimeout, cfg.MaxRetries = 4, 100*time.Millisecond, 0
	})
	for i, err := range statusCalls(ctxTimeout(t, 20*time.Second), c, 6) {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if n := sim.Calls("get_proc_status_v2"); n != 6 {
		t.Errorf("get_proc_status_v2 received %d times, want 6", n)
	}
}

// A register every attempt of which the installation refused for the rate
// limit until the deadline reached no GSE: its hosts are NotActed, not
// pending (nothing may exist there), and the error still names the throttle.
// The rate keeps the retry waiting its turn when the deadline passes (an
// attempt in flight then may have acted, and would be pending).
func TestRegisterOnlyRefusedIsNotActed(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{}, func(cfg *gse.Config) { cfg.MaxRetries, cfg.RateLimit = 0, 0.5 })
	sim.AddFault(simulator.Fault{API: "register_proc_info", Code: gse.CodeESBRateLimited, Message: "Request rate exceeds the limit", Times: simulator.Forever})
	hosts := []gse.Host{host1, {IP: "10.0.0.2"}}
	done, err := c.Proc.RegisterProcInfo(ctxTimeout(t, 300*time.Millisecond), meta, hosts, spec)
	var he *gse.HostsError
	if len(done) != 0 || !errors.As(err, &he) || len(he.NotActed) != 2 || len(he.Pending) != 0 || gse.KindOf(err) != gse.KindRateLimited {
		t.Fatalf("done %v, err %v", done, err)
	}
	if sim.Calls("register_proc_info") != 1 || len(sim.GSE().Processes()) != 0 {
		t.Fatalf("%d requests, processes %v: want one, refused", sim.Calls("register_proc_info"), sim.GSE().Processes())
	}
	if !strings.Contains(err.Error(), "was not sent to 2 of 2 hosts") || !strings.Contains(err.Error(), "(code 1306429)") {
		t.Errorf("err = %v", err)
	}
}
