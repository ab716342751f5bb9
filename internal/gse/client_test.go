package gse_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

const (
	testCode   = "demo-app"
	testSecret = "s3cr3t-value"
)

var (
	meta  = gse.Meta{Namespace: "gse", Name: "proc-test", Labels: map[string]string{"team": "ops"}}
	host1 = gse.Host{IP: "10.0.0.1"}
	host2 = gse.Host{IP: "10.0.0.2", BkCloudID: 1, BkSupplierID: 2}
	spec  = &gse.Spec{
		Identity:      gse.Identity{ProcName: "proc-test", SetupPath: "/data/gsetest", PidPath: "/data/gsetest/proc-test.pid", User: "root"},
		Control:       gse.Control{StartCmd: "./start.sh", StopCmd: "./stop.sh"},
		Resource:      &gse.Resource{CPU: 10, Mem: 10},
		MonitorPolicy: &gse.MonitorPolicy{AutoType: 1},
	}
)

// recordingLogger keeps every logged line, to prove secrets never reach the log.
type recordingLogger struct {
	mu    sync.Mutex
	lines []string
}

func (l *recordingLogger) add(msg string, f map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, _ := json.Marshal(f)
	l.lines = append(l.lines, msg+" "+string(b))
}
func (l *recordingLogger) Debug(_ context.Context, msg string, f map[string]any) { l.add(msg, f) }
func (l *recordingLogger) Warn(_ context.Context, msg string, f map[string]any)  { l.add(msg, f) }

// testRate paces the tests' clients: retries and polls a millisecond apart,
// not the adaptive rate's slow start (limiter_test.go tests that).
const testRate = 1000

func newClient(t testing.TB, opts simulator.Options) (*gse.Client, *simulator.Server, *recordingLogger) {
	t.Helper()
	return newClientWith(t, opts, nil)
}

// newClientWith is newClient with tune applied to the client's configuration.
func newClientWith(t testing.TB, opts simulator.Options, tune func(*gse.Config)) (*gse.Client, *simulator.Server, *recordingLogger) {
	t.Helper()
	return newClientBehind(t, opts, nil, tune)
}

// newClientBehind is newClientWith whose requests pass through front (when
// not nil) on their way to the simulator.
func newClientBehind(t testing.TB, opts simulator.Options, front func(http.Handler) http.Handler, tune func(*gse.Config)) (*gse.Client, *simulator.Server, *recordingLogger) {
	t.Helper()
	opts.AppCode, opts.AppSecret = testCode, testSecret
	sim := simulator.New(opts)
	var h http.Handler = sim
	if front != nil {
		h = front(sim)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	log := &recordingLogger{}
	cfg := gse.Config{
		Endpoint: srv.URL, AppCode: testCode, AppSecret: testSecret, Username: "admin",
		MaxRetries: 3, RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond,
		RateLimit:   testRate,
		PollInitial: time.Millisecond, PollMax: 5 * time.Millisecond, Logger: log,
	}
	if tune != nil {
		tune(&cfg)
	}
	c, err := gse.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, sim, log
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestLifecycle(t *testing.T) {
	t.Parallel()
	c, sim, log := newClient(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 3, Pending: 3}})
	ctx := ctxTimeout(t, 10*time.Second)
	hosts := []gse.Host{host1, host2}

	done, err := c.Proc.RegisterProcInfo(ctx, meta, hosts, spec)
	if err != nil || len(done) != 2 {
		t.Fatalf("register: %v %v", done, err)
	}
	out, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpHost, Spec: spec})
	if err != nil {
		t.Fatalf("host: %v", err)
	}
	if len(out.Hosts) != 2 || out.TaskID == "" {
		t.Fatalf("outcome %+v", out)
	}
	// 1000115 three times, then an empty map, then 115 twice, then the result.
	if n := sim.Calls("get_proc_operate_result_v2"); n != 7 {
		t.Errorf("polls = %d, want 7", n)
	}
	// Hosting a resident process starts it, so an explicit start is the no-op 828, a success.
	out, err = c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpStart, Spec: spec})
	if err != nil || out.Hosts[0].ErrorCode != gse.HostAlreadyRunning {
		t.Fatalf("start: %+v %v", out, err)
	}
	st, err := c.Proc.GetProcStatusV2(ctx, meta, hosts)
	if err != nil || len(st) != 2 {
		t.Fatalf("status: %+v %v", st, err)
	}
	for _, s := range st {
		if s.Status != gse.StateRunning || !s.IsAuto || s.PID <= 0 || s.Meta.Labels["team"] != "ops" {
			t.Errorf("status entry %+v", s)
		}
	}
	if _, err := c.Proc.UpdateProcInfo(ctx, meta, hosts, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpStop, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Proc.UnregisterProcInfo(ctx, meta, hosts); err != nil {
		t.Fatal(err)
	}
	if p := sim.GSE().Processes(); len(p) != 0 {
		t.Fatalf("left behind: %+v", p)
	}
	// Unregistering again is not an error (829).
	if _, err := c.Proc.UnregisterProcInfo(ctx, meta, hosts); err != nil {
		t.Fatal(err)
	}
	for _, l := range log.lines {
		if strings.Contains(l, testSecret) {
			t.Fatalf("secret logged: %s", l)
		}
	}
	if len(log.lines) == 0 {
		t.Fatal("nothing logged")
	}
}

func TestRegisterResendsPendingHosts(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	sim.AddHostFault(simulator.HostFault{API: "register_proc_info", IP: host2.IP, Code: gse.HostPending, Times: 2})
	done, err := c.Proc.RegisterProcInfo(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1, host2}, spec)
	if err != nil || len(done) != 2 {
		t.Fatalf("register: %v %v", done, err)
	}
	if n := sim.Calls("register_proc_info"); n != 3 {
		t.Errorf("calls = %d, want 3", n)
	}
}

func TestRegisterConflictNamesHost(t *testing.T) {
	t.Parallel()
	c, _, _ := newClient(t, simulator.Options{})
	ctx := ctxTimeout(t, 5*time.Second)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host2}, spec); err != nil {
		t.Fatal(err)
	}
	done, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1, host2}, spec)
	var he *gse.HostsError
	if !errors.As(err, &he) || len(done) != 1 || done[0] != host1 {
		t.Fatalf("done %v err %v", done, err)
	}
	for _, want := range []string{"register_proc_info", "10.0.0.2 (bk_cloud_id 1)", "GSE code 850"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if codes := he.Codes(); len(codes) != 1 || codes[0] != gse.HostRegistered {
		t.Errorf("codes %v, want [850]", codes)
	}
}

func TestOperateHostFailureAndPending(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	ctx := ctxTimeout(t, 5*time.Second)
	hosts := []gse.Host{host1, host2}
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, hosts, spec); err != nil {
		t.Fatal(err)
	}
	sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: host2.IP, Code: gse.HostAgentAbnormal, Message: "agent offline", Times: 1})
	out, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpHost, Spec: spec})
	if err == nil || !strings.Contains(err.Error(), "failed on 1 of 2 hosts") || !strings.Contains(err.Error(), "10.0.0.2 (bk_cloud_id 1): GSE code 117: agent offline") {
		t.Fatalf("err = %v", err)
	}
	if len(out.Hosts) != 2 {
		t.Fatalf("outcome %+v", out)
	}

	// A host that never finishes fails at the deadline, named.
	sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: host1.IP, Code: gse.HostPending, Times: 1})
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err = c.Proc.Operate(short, gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpRestart, Spec: spec})
	var he *gse.HostsError
	if !errors.As(err, &he) || len(he.Pending) != 1 || he.Pending[0] != host1 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "did not finish on 1 of 2 hosts") || !strings.Contains(err.Error(), "10.0.0.1 (bk_cloud_id 0)") {
		t.Fatalf("err = %v", err)
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	for _, f := range []simulator.Fault{
		{HTTPStatus: http.StatusInternalServerError, Times: 2},
		{HTTPStatus: http.StatusBadGateway},
		{HTTPStatus: http.StatusTooManyRequests, RetryAfter: "0", Times: 2},
		{Code: 1306429, Times: 3},
		{Code: 1642902},
	} {
		c, sim, _ := newClient(t, simulator.Options{})
		f.API = "get_proc_status_v2"
		sim.AddFault(f)
		if _, err := c.Proc.GetProcStatusV2(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1}); err != nil {
			t.Errorf("%+v: %v", f, err)
		}
		want := max(f.Times, 1) + 1
		if n := sim.Calls("get_proc_status_v2"); n != want {
			t.Errorf("%+v: calls = %d, want %d", f, n, want)
		}
	}
}

func TestRetriesExhaustedKeepsAPIError(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	sim.AddFault(simulator.Fault{HTTPStatus: http.StatusServiceUnavailable, Message: "upstream down", Times: 10})
	_, err := c.Proc.GetProcStatusV2(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1})
	var ae *gse.APIError
	if !errors.As(err, &ae) || ae.HTTPStatus != http.StatusServiceUnavailable || ae.Attempts != 4 {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(err.Error(), "upstream down") || !strings.Contains(err.Error(), "after 4 attempts") {
		t.Fatalf("err = %v", err)
	}
}

// An operate submit answered 5xx may have started a task: it must not be re-sent.
func TestOperateSubmitNotResentAfterAmbiguousFailure(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	ctx := ctxTimeout(t, 5*time.Second)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1}, spec); err != nil {
		t.Fatal(err)
	}
	sim.AddFault(simulator.Fault{API: "operate_proc_v2", HTTPStatus: http.StatusInternalServerError})
	_, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: gse.OpStart, Spec: spec})
	var ae *gse.APIError
	if !errors.As(err, &ae) || ae.HTTPStatus != 500 {
		t.Fatalf("err = %v", err)
	}
	if n := sim.Calls("operate_proc_v2"); n != 1 {
		t.Fatalf("operate_proc_v2 sent %d times, want 1", n)
	}
	// A rate limit means the request was refused unseen: that is re-sent.
	sim.AddFault(simulator.Fault{API: "operate_proc_v2", HTTPStatus: http.StatusTooManyRequests})
	if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: gse.OpStart, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	if n := sim.Calls("operate_proc_v2"); n != 3 {
		t.Fatalf("operate_proc_v2 sent %d times, want 3", n)
	}
}

func TestAuthFailsAtOnce(t *testing.T) {
	t.Parallel()
	sim := simulator.New(simulator.Options{AppCode: testCode, AppSecret: "other"})
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	c, err := gse.New(gse.Config{Endpoint: srv.URL, AppCode: testCode, AppSecret: testSecret, Username: "admin", MaxRetries: 5})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Proc.GetProcStatusV2(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1})
	if gse.KindOf(err) != gse.KindAuth || sim.Calls("get_proc_status_v2") != 1 {
		t.Fatalf("err = %v, calls %d", err, sim.Calls("get_proc_status_v2"))
	}
	if strings.Contains(err.Error(), testSecret) || !strings.Contains(err.Error(), "code 1306000: APP Secret verification failed") {
		t.Fatalf("err = %v", err)
	}
}

// OperateV1 (operate_proc) acts on the registered spec of its own process only.
func TestOperateV1(t *testing.T) {
	t.Parallel()
	c, _, _ := newClient(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}})
	ctx := ctxTimeout(t, 5*time.Second)
	other := gse.Meta{Namespace: "gse", Name: "other"}
	for _, m := range []gse.Meta{meta, other} {
		if _, err := c.Proc.RegisterProcInfo(ctx, m, []gse.Host{host1, host2}, spec); err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.Proc.OperateV1(ctx, gse.OperateRequest{Meta: other, Hosts: []gse.Host{host2}, Op: gse.OpStatus})
	if err != nil || !strings.Contains(out.Hosts[0].Content, `"procname":"proc-test"`) {
		t.Fatalf("v1: %+v %v", out, err)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cfg  gse.Config
		want string
	}{
		{gse.Config{AppCode: "a", AppSecret: "s", Username: "u"}, "endpoint is required"},
		{gse.Config{Endpoint: "paas.example.com", AppCode: "a", AppSecret: "s", Username: "u"}, "http:// or https://"},
		{gse.Config{Endpoint: "https://paas.example.com", AppSecret: "s", Username: "u"}, "app code"},
		{gse.Config{Endpoint: "https://paas.example.com", AppCode: "a", AppSecret: "s"}, "username or bk_token"},
		{gse.Config{Endpoint: "https://paas.example.com", AppCode: "a", AppSecret: "s", Username: "u", CACertPEM: "nope"}, "no PEM certificate"},
	} {
		if _, err := gse.New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// The time-based task latency the demo uses: the task answers only once it has lasted.
func TestOperateWaitsForTimedTask(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{TaskLatency: 300 * time.Millisecond})
	ctx := ctxTimeout(t, 5*time.Second)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1}, spec); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: gse.OpHost, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("the task answered after %v, before it had lasted", d)
	}
	if n := sim.Calls("get_proc_operate_result_v2"); n < 2 {
		t.Fatalf("%d polls: pending answers were not polled through", n)
	}
}
