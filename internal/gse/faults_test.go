package gse_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// A register that GSE carried out but whose reply never arrived is re-sent by
// the retry policy; the 850 it then gets is its own work, not a conflict.
func TestRegisterRetriedAfterAmbiguousFailure(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]simulator.Fault{
		"reply past request timeout": {Delay: 2 * time.Second},
		"reply cut short":            {Cut: true},
		"5xx after acting":           {HTTPStatus: http.StatusServiceUnavailable, Acted: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, sim, _ := newClientWith(t, simulator.Options{}, func(c *gse.Config) { c.RequestTimeout = 300 * time.Millisecond })
			f.API = "register_proc_info"
			sim.AddFault(f)
			done, err := c.Proc.RegisterProcInfo(ctxTimeout(t, 10*time.Second), meta, []gse.Host{host1, host2}, spec)
			if err != nil || len(done) != 2 {
				t.Fatalf("done %v, err %v", done, err)
			}
			if n := sim.Calls("register_proc_info"); n != 2 {
				t.Fatalf("register_proc_info sent %d times, want 2", n)
			}
		})
	}
}

// A retry after a refusal that cannot have acted (a rate limit) still reports
// a real conflict: the process was registered by someone else.
func TestRegisterConflictAfterRateLimit(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	ctx := ctxTimeout(t, 5*time.Second)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1}, spec); err != nil {
		t.Fatal(err)
	}
	sim.AddFault(simulator.Fault{API: "register_proc_info", HTTPStatus: http.StatusTooManyRequests, RetryAfter: "0"})
	_, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1}, spec)
	var he *gse.HostsError
	if !errors.As(err, &he) || len(he.Failures) != 1 || he.Failures[0].Code != gse.HostRegistered {
		t.Fatalf("err = %v, want 850 on 10.0.0.1", err)
	}
}

// A reply cut short is retried on idempotent calls and reported with the read error.
func TestTruncatedReply(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	ctx := ctxTimeout(t, 5*time.Second)
	sim.AddFault(simulator.Fault{API: "get_proc_status_v2", Cut: true})
	if _, err := c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1}); err != nil {
		t.Fatalf("a cut reply was not retried: %v", err)
	}
	if n := sim.Calls("get_proc_status_v2"); n != 2 {
		t.Fatalf("get_proc_status_v2 sent %d times, want 2", n)
	}

	sim.AddFault(simulator.Fault{API: "get_proc_status_v2", Cut: true, Times: simulator.Forever})
	_, err := c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1})
	var re *gse.ReplyError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "unexpected EOF") || strings.Contains(err.Error(), "GSE code 0") || re.Attempts != 4 || re.MayHaveActed {
		t.Fatalf("err = %v, want the read error after 4 attempts", err)
	}
	sim.ClearFaults()

	// An operate submit whose reply is cut may have started a task: never re-sent.
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1}, spec); err != nil {
		t.Fatal(err)
	}
	sim.AddFault(simulator.Fault{API: "operate_proc_v2", Cut: true})
	_, err = c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: gse.OpStart, Spec: spec})
	if !errors.As(err, &re) || sim.Calls("operate_proc_v2") != 1 || !strings.HasSuffix(err.Error(), "; the server had the request and may have acted on it, so it was not sent again") {
		t.Fatalf("err = %v, operate_proc_v2 sent %d times", err, sim.Calls("operate_proc_v2"))
	}
}

// A 503 that lasts until the deadline is what the error reports, not "pending".
func TestServerErrorUntilDeadline(t *testing.T) {
	t.Parallel()
	patient := func(c *gse.Config) {
		c.MaxRetries, c.RetryWaitMin, c.RetryWaitMax = 20, 20*time.Millisecond, 50*time.Millisecond
	}
	t.Run("poll", func(t *testing.T) {
		t.Parallel()
		c, sim, _ := newClientWith(t, simulator.Options{}, patient)
		if _, err := c.Proc.RegisterProcInfo(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1}, spec); err != nil {
			t.Fatal(err)
		}
		sim.AddFault(simulator.Fault{API: "get_proc_operate_result_v2", HTTPStatus: http.StatusServiceUnavailable, Message: "upstream down", Times: simulator.Forever})
		_, err := c.Proc.Operate(ctxTimeout(t, 400*time.Millisecond), gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: gse.OpStart, Spec: spec})
		var he *gse.HostsError
		if !errors.As(err, &he) || len(he.Pending) != 1 || !errors.Is(err, context.DeadlineExceeded) || gse.KindOf(err) != gse.KindServer ||
			!strings.Contains(err.Error(), "HTTP 503: upstream down") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("register", func(t *testing.T) {
		t.Parallel()
		c, sim, _ := newClientWith(t, simulator.Options{}, patient)
		sim.AddFault(simulator.Fault{API: "register_proc_info", HTTPStatus: http.StatusServiceUnavailable, Times: simulator.Forever})
		_, err := c.Proc.RegisterProcInfo(ctxTimeout(t, 300*time.Millisecond), meta, []gse.Host{host1}, spec)
		var he *gse.HostsError
		if !errors.As(err, &he) || len(he.Pending) != 1 || gse.KindOf(err) != gse.KindServer || !strings.Contains(err.Error(), "HTTP 503") {
			t.Fatalf("err = %v", err)
		}
	})
}

// A host that stays out of the result map is pending until the deadline, then named.
func TestMissingHostPendingUntilDeadline(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}})
	if _, err := c.Proc.RegisterProcInfo(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1, host2}, spec); err != nil {
		t.Fatal(err)
	}
	sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: host2.IP, Missing: true, Times: simulator.Forever})
	out, err := c.Proc.Operate(ctxTimeout(t, 300*time.Millisecond), gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1, host2}, Op: gse.OpStart, Spec: spec})
	var he *gse.HostsError
	if !errors.As(err, &he) || len(he.Pending) != 1 || he.Pending[0] != host2 || len(he.Failures) != 0 || len(out.Hosts) != 1 {
		t.Fatalf("out %+v, err %v", out, err)
	}
	if sim.Calls("get_proc_operate_result_v2") < 4 {
		t.Fatalf("the host was failed at once, not polled until the deadline")
	}
}

// A server that echoes the request leaks no configured secret into errors or logs.
func TestEchoedSecretsRedacted(t *testing.T) {
	t.Parallel()
	const token = "tok-\"<&>-value"
	c, sim, log := newClientWith(t, simulator.Options{}, func(c *gse.Config) { c.BkToken = token })
	sim.AddFault(simulator.Fault{API: "get_proc_status_v2", Echo: true})
	_, err := c.Proc.GetProcStatusV2(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1})
	if gse.KindOf(err) != gse.KindParams || !strings.Contains(err.Error(), `"bk_app_secret":"[redacted]"`) {
		t.Fatalf("err = %v", err)
	}
	texts := append([]string{err.Error()}, log.lines...)
	for _, s := range texts {
		for _, secret := range []string{testSecret, token, `tok-\"\u003c\u0026\u003e-value`} {
			if strings.Contains(s, secret) {
				t.Fatalf("secret %q in %q", secret, s)
			}
		}
	}
}

// A per-host message that echoes a secret is redacted too, and a secret too
// short to redact safely does not mangle the replies it occurs in.
func TestRedactionOfHostMessagesAndShortSecrets(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	sim.AddHostFault(simulator.HostFault{API: "register_proc_info", IP: host2.IP, Code: gse.HostCommandFailed, Message: "sh: " + testSecret + ": not found", Times: simulator.Forever})
	_, err := c.Proc.RegisterProcInfo(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1, host2}, spec)
	if err == nil || strings.Contains(err.Error(), testSecret) || !strings.Contains(err.Error(), "sh: [redacted]: not found") {
		t.Fatalf("err = %v", err)
	}

	srv := httptest.NewServer(simulator.New(simulator.Options{}))
	t.Cleanup(srv.Close)
	short, err := gse.New(gse.Config{Endpoint: srv.URL, AppCode: "a", AppSecret: "s", Username: "u", PollInitial: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if done, err := short.Proc.RegisterProcInfo(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1}, spec); err != nil || len(done) != 1 {
		t.Fatalf("with a one-letter secret: %v %v", done, err)
	}
}
