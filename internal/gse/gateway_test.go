package gse_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// The stage prefix of a gateway root: the client must keep it in every path.
const gatewayStage = "/api/bk-gse/prod"

const agentA = "0200000007525400f355781710390005465c"

// seenRequest is one request as the gateway received it.
type seenRequest struct {
	path   string
	header http.Header
	body   map[string]any
}

type recorder struct {
	mu   sync.Mutex
	reqs []seenRequest
}

func (r *recorder) all() []seenRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs)
}

// newGateway serves the simulator under a gateway stage, records every
// request, and returns a client configured with only the gateway URL.
func newGateway(t *testing.T, opts simulator.Options, tune func(*gse.Config)) (*gse.Client, *simulator.Server, *recorder) {
	t.Helper()
	opts.AppCode, opts.AppSecret = testCode, testSecret
	sim := simulator.New(opts)
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, seenRequest{path: r.URL.Path, header: r.Header.Clone(), body: body})
		rec.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(raw))
		http.StripPrefix(gatewayStage, sim).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := gse.Config{
		GatewayURL: srv.URL + gatewayStage, AppCode: testCode, AppSecret: testSecret, Username: "admin",
		MaxRetries: 3, RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond,
		RateLimit:   testRate,
		PollInitial: time.Millisecond, PollMax: 5 * time.Millisecond, BatchWindow: -1,
	}
	if tune != nil {
		tune(&cfg)
	}
	c, err := gse.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, sim, rec
}

// gwSpec has no resource limits: the gateway must then get no resource block.
var gwSpec = &gse.Spec{
	Identity:      spec.Identity,
	Control:       spec.Control,
	Resource:      &gse.Resource{},
	MonitorPolicy: &gse.MonitorPolicy{AutoType: 1},
}

// The whole life cycle through the gateway: a host by agent id, one by ip
// and an IPv6 one by {cloud}:{ip}; gateway paths, agent_id_list, agent-id
// result keys, header-only credentials, the 2.0 spec.
func TestGatewayLifecycle(t *testing.T) {
	t.Parallel()
	c, sim, rec := newGateway(t, simulator.Options{}, nil)
	sim.Gateway().AddAgent(agentA, 3, "10.0.3.1")
	hosts := []gse.Host{{AgentID: agentA}, {IP: "10.0.0.1"}, {IP: "2001:DB8::5", BkCloudID: 2}}
	ctx := ctxTimeout(t, 5*time.Second)

	out, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpHost, Spec: gwSpec})
	if err != nil || len(out.Hosts) != 3 {
		t.Fatalf("create by operate: %v, %v", out, err)
	}
	for i, h := range out.Hosts {
		if h.Host != hosts[i] || !h.OK() {
			t.Fatalf("outcome %d: %+v", i, h)
		}
	}
	for _, p := range []struct {
		cloud int64
		ip    string
		agent string
	}{{3, "10.0.3.1", agentA}, {0, "10.0.0.1", "0:10.0.0.1"}, {2, "2001:db8::5", "2:2001:DB8::5"}} {
		got, ok := sim.GSE().Process(meta.Namespace, meta.Name, p.cloud, p.ip)
		if !ok || !got.Hosted || !got.Running || got.AgentID != p.agent {
			t.Fatalf("process on %s: %+v (registered %v)", p.ip, got, ok)
		}
	}

	entries, err := c.Proc.GetProcStatusV2(ctx, meta, hosts)
	if err != nil || len(entries) != 3 {
		t.Fatalf("status: %v, %v", entries, err)
	}
	for _, h := range hosts {
		if !slices.ContainsFunc(entries, func(e gse.ProcStatus) bool { return e.Host.Key() == h.Key() && e.Status == gse.StateRunning }) {
			t.Fatalf("no running entry matches %s: %+v", h, entries)
		}
	}
	if done, err := c.Proc.UpdateProcInfo(ctx, meta, hosts, spec); err != nil || len(done) != 3 {
		t.Fatalf("update: %v, %v", done, err)
	}
	if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpStop, Spec: gwSpec}); err != nil {
		t.Fatal(err)
	}

	wantAgents := []any{agentA, "0:10.0.0.1", "2:2001:DB8::5"}
	apis := map[string]bool{}
	for _, r := range rec.all() {
		api, ok := strings.CutPrefix(r.path, gatewayStage+"/api/v2/proc/")
		if !ok {
			t.Fatalf("request to %s, want %s/api/v2/proc/{api}", r.path, gatewayStage)
		}
		apis[api] = true
		var auth map[string]string
		if err := json.Unmarshal([]byte(r.header.Get("X-Bkapi-Authorization")), &auth); err != nil || auth["bk_app_code"] != testCode || auth["bk_app_secret"] != testSecret || auth["bk_username"] != "admin" {
			t.Fatalf("%s: X-Bkapi-Authorization %q", api, r.header.Get("X-Bkapi-Authorization"))
		}
		for _, k := range []string{"bk_app_code", "bk_app_secret", "bk_username", "bk_token", "access_token", "bk_supplier_account"} {
			if _, ok := r.body[k]; ok {
				t.Fatalf("%s: credential %s in the body", api, k)
			}
		}
		if r.header.Get("X-Bk-Tenant-Id") != "" {
			t.Fatalf("%s: a tenant header without a tenant", api)
		}
		if api == "get_proc_operate_result_v2" {
			continue
		}
		if got := r.body["agent_id_list"]; fmt.Sprint(got) != fmt.Sprint(wantAgents) || r.body["hosts"] != nil {
			t.Fatalf("%s: agent_id_list %v, hosts %v", api, got, r.body["hosts"])
		}
		if sp, ok := r.body["spec"].(map[string]any); ok {
			if sp["monitor_policy"] == nil || sp["alive_monitor_policy"] != nil {
				t.Fatalf("%s: spec %v, want monitor_policy only", api, sp)
			}
			if _, hasRes := sp["resource"]; hasRes != (api == "update_proc_info") { // spec sets cpu/mem, gwSpec does not
				t.Fatalf("%s: resource sent %v", api, hasRes)
			}
		}
	}
	for _, api := range []string{"operate_proc_v2", "get_proc_operate_result_v2", "get_proc_status_v2", "update_proc_info"} {
		if !apis[api] {
			t.Fatalf("%s never called; called %v", api, apis)
		}
	}
}

// Concurrent operations through the gateway share one operate_proc_multi
// task, each caller getting its own hosts by agent-id key.
func TestGatewayBatchedOperate(t *testing.T) {
	t.Parallel()
	c, sim, _ := newGateway(t, simulator.Options{}, func(cfg *gse.Config) { cfg.BatchWindow = 50 * time.Millisecond })
	ctx := ctxTimeout(t, 5*time.Second)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := gse.Meta{Namespace: "gse", Name: fmt.Sprintf("p%d", i)}
			out, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: m, Hosts: []gse.Host{{IP: "10.0.0.9"}}, Op: gse.OpStart, Spec: gwSpec})
			if err == nil && (len(out.Hosts) != 1 || out.Hosts[0].Meta.Name != m.Name) {
				err = fmt.Errorf("outcome %+v", out)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if tasks := sim.Tasks(); len(tasks) != 1 || tasks[0].API != "operate_proc_multi" || tasks[0].Items != 3 {
		t.Fatalf("tasks %+v, want one operate_proc_multi of 3 items", tasks)
	}
}

// The tenant goes in X-Bk-Tenant-Id, an access token alone in
// X-Bkapi-Authorization; a wrong tenant or token is refused, the token is
// never in the body.
func TestGatewayTenantAndAccessToken(t *testing.T) {
	t.Parallel()
	const token = "tok-6f1d2c9a-secret"
	opts := simulator.Options{TenantID: "tenant-a", AccessToken: token}
	withToken := func(tenant, tok string) func(*gse.Config) {
		return func(cfg *gse.Config) {
			cfg.AppCode, cfg.AppSecret, cfg.Username = "", "", ""
			cfg.TenantID, cfg.AccessToken = tenant, tok
		}
	}
	ctx := ctxTimeout(t, 5*time.Second)

	c, sim, rec := newGateway(t, opts, withToken("tenant-a", token))
	if _, err := c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1}); err != nil {
		t.Fatal(err)
	}
	r := rec.all()[0]
	if r.header.Get("X-Bk-Tenant-Id") != "tenant-a" || r.header.Get("X-Bkapi-Authorization") != `{"access_token":"`+token+`"}` {
		t.Fatalf("headers %v", r.header)
	}
	sim.AddFault(simulator.Fault{API: "get_proc_status_v2", Echo: true, HTTPStatus: http.StatusBadRequest, Code: 1640001})
	_, err := c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1})
	if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), `"agent_id_list"`) {
		t.Fatalf("the echoed body holds the token, or no body was echoed: %v", err)
	}

	c, _, _ = newGateway(t, opts, withToken("tenant-b", token))
	_, err = c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1})
	var apiErr *gse.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 1640302 || apiErr.HTTPStatus != http.StatusForbidden || gse.KindOf(err) != gse.KindTenant || !strings.Contains(err.Error(), "[GH]") {
		t.Fatalf("wrong tenant: %v", err)
	}

	c, _, _ = newGateway(t, opts, withToken("tenant-a", "tok-wrong-0000"))
	_, err = c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1})
	if gse.KindOf(err) != gse.KindAuth || !strings.Contains(err.Error(), "access_token credentials") || strings.Contains(err.Error(), "tok-wrong-0000") {
		t.Fatalf("wrong token: %v", err)
	}
}

// Each class of gateway error, with its HTTP status and rewritten to 200:
// the kind, the advice in the message, and whether the call was retried.
func TestGatewayErrorClasses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code, status int
		kind         gse.Kind
		says         string
		statusCalls  int // get_proc_status_v2 (idempotent) attempts
		operateCalls int // operate_proc_v2 (not idempotent) attempts
	}{
		{1640001, 400, gse.KindParams, "Parameters error", 1, 1},
		{1640301, 403, gse.KindPermission, "the app has no permission for the API get_proc_status_v2", 1, 1},
		{1640302, 403, gse.KindTenant, "CROSS_TENANT_FORBIDDEN: Cross tenant forbidden", 1, 1},
		{1641301, 413, gse.KindParams, "body is too large", 1, 1},
		// Upstream failures: the backend may have acted, so an operate is not sent again.
		{1650200, 502, gse.KindServer, `code 1650200 BAD_GATEWAY: Bad Gateway [upstream_error="connection refused"]`, 4, 1},
		{1650401, 504, gse.KindServer, "code 1650401 REQUEST_BACKEND_TIMEOUT", 4, 1},
	} {
		for _, rewrite := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/rewritten=%v", tc.code, rewrite), func(t *testing.T) {
				t.Parallel()
				c, sim, _ := newGateway(t, simulator.Options{}, nil)
				sim.SetGatewayStatusRewrite(rewrite)
				sim.AddFault(simulator.Fault{Code: tc.code, Times: simulator.Forever})
				ctx := ctxTimeout(t, 5*time.Second)
				_, err := c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1})
				var apiErr *gse.APIError
				wantStatus := tc.status
				if rewrite && tc.kind != gse.KindServer { // bk-status-rewrite: the plugins' refusals, not nginx's upstream errors
					wantStatus = http.StatusOK
				}
				if !errors.As(err, &apiErr) || apiErr.Code != tc.code || apiErr.HTTPStatus != wantStatus || gse.KindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.says) {
					t.Fatalf("err = %v (kind %v), want code %d HTTP %d kind %v saying %q", err, gse.KindOf(err), tc.code, wantStatus, tc.kind, tc.says)
				}
				if n := sim.Calls("get_proc_status_v2"); n != tc.statusCalls {
					t.Fatalf("get_proc_status_v2 sent %d times, want %d", n, tc.statusCalls)
				}
				_, err = c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: gse.OpStart, Spec: gwSpec})
				if gse.KindOf(err) != tc.kind {
					t.Fatalf("operate: %v", err)
				}
				if n := sim.Calls("operate_proc_v2"); n != tc.operateCalls {
					t.Fatalf("operate_proc_v2 sent %d times, want %d", n, tc.operateCalls)
				}
			})
		}
	}
}

// A rate limit passes after backing off, without Retry-After.
func TestGatewayRateLimitBackoff(t *testing.T) {
	t.Parallel()
	c, sim, _ := newGateway(t, simulator.Options{}, nil)
	sim.AddFault(simulator.Fault{API: "get_proc_status_v2", Code: 1642903, Times: 2})
	if _, err := c.Proc.GetProcStatusV2(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1}); err != nil {
		t.Fatal(err)
	}
	if n := sim.Calls("get_proc_status_v2"); n != 3 {
		t.Fatalf("sent %d times, want 3", n)
	}
}

// Replies without "result" (success is code 0), errors told only by the
// X-Bkapi-Error-Code / X-Bkapi-Error-Message headers, and an access token
// redacted where the gateway echoes it.
func TestGatewayEnvelopeWithoutResult(t *testing.T) {
	t.Parallel()
	var mode string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch mode {
		case "ok":
			_, _ = io.WriteString(w, `{"code":0,"message":"","data":{"proc_infos":[{"host":{"ip":"10.0.0.1","bk_cloud_id":0},"bk_agent_id":"0:10.0.0.1","status":1}]}}`)
		case "code":
			_, _ = io.WriteString(w, `{"code":1640001,"message":"agent_id_list is required","data":null}`)
		case "echo":
			w.Header().Set("X-Bkapi-Error-Code", "1640001")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprintf(w, `{"code":1640001,"code_name":"INVALID_ARGS","message":%q,"result":false,"data":null}`, `Parameters error [reason="access_token has expired: `+r.Header.Get("X-Bkapi-Authorization")+`"]`)
		case "headers":
			w.Header().Set("X-Bkapi-Error-Code", "1640301")
			w.Header().Set("X-Bkapi-Error-Message", "App has no permission to the resource")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, "forbidden")
		}
	}))
	t.Cleanup(srv.Close)
	c, err := gse.New(gse.Config{GatewayURL: srv.URL, AccessToken: "tok-7c1e-secret", MaxRetries: 1, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxTimeout(t, 5*time.Second)
	set := func(m string) { mu.Lock(); mode = m; mu.Unlock() }

	set("ok")
	entries, err := c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1})
	if err != nil || len(entries) != 1 || entries[0].Host.Key() != host1.Key() {
		t.Fatalf("code 0 without result: %v, %v", entries, err)
	}
	set("code")
	_, err = c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1})
	if gse.KindOf(err) != gse.KindParams || !strings.Contains(err.Error(), "agent_id_list is required") {
		t.Fatalf("code 1640001 without result: %v", err)
	}
	set("echo")
	_, err = c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1})
	if gse.KindOf(err) != gse.KindAuth || strings.Contains(err.Error(), "tok-7c1e-secret") || !strings.Contains(err.Error(), "[redacted]") || !strings.Contains(err.Error(), "access_token credentials") {
		t.Fatalf("echoed access token: %v", err)
	}
	set("headers")
	_, err = c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1})
	var apiErr *gse.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 1640301 || gse.KindOf(err) != gse.KindPermission || !strings.Contains(err.Error(), "the app has no permission") {
		t.Fatalf("header-only error: %v", err)
	}
}

// Status entries in the shape the real GSE 2.0 server sends, written out here
// rather than taken from the simulator: bk_agent_id at the top level of each
// entry (bk-bscp internal/components/gse/type.go ProcInfo, SyncProcInfo),
// sometimes beside host (bk-nodeman apps/adapters/api/gse/v2.py), never in
// it. Hosts given only by agent id are found by it, in any case; a host sent
// by ip, or as a {cloud}:{ip} agent id, whose entry names its real agent id
// is found by its ip;
// listed entries are addressed by their agent id.
func TestGatewayStatusTopLevelAgentID(t *testing.T) {
	t.Parallel()
	agentB := "0200000007525400f355781710390005465d"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/get_proc_status_v2"):
			_, _ = io.WriteString(w, `{"code":0,"message":"success","data":{"proc_infos":[
{"meta":{"namespace":"gse","name":"proc-test"},"bk_agent_id":"`+strings.ToUpper(agentA)+`","status":1,"isauto":true,"pid":4437},
{"meta":{"namespace":"gse","name":"proc-test"},"host":{"ip":"10.0.0.9","bk_cloud_id":0},"bk_agent_id":"`+agentB+`","status":2,"isauto":true,"pid":-1},
{"meta":{"namespace":"gse","name":"proc-test"},"host":{"ip":"10.0.0.1","bk_cloud_id":0},"bk_agent_id":"02000000aaaaaaaaaaaaaaaaaaaaaaaaaaaa","status":1,"isauto":false},
{"meta":{"namespace":"gse","name":"proc-test"},"host":{"ip":"2001:db8::7","bk_cloud_id":2},"bk_agent_id":"02000000bbbbbbbbbbbbbbbbbbbbbbbbbbbb","status":1,"isauto":true}]}}`)
		case strings.HasSuffix(r.URL.Path, "/sync_proc_status"):
			_, _ = io.WriteString(w, `{"code":0,"message":"success","data":{"count":2,"proc_infos":[
{"meta":{"namespace":"gse","name":"proc-test"},"bk_agent_id":"`+agentA+`","status":1},
{"meta":{"namespace":"gse","name":"proc-test"},"host":{"ip":"10.0.0.9","bk_cloud_id":0},"bk_agent_id":"`+agentB+`","status":1}]}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := gse.New(gse.Config{GatewayURL: srv.URL, AccessToken: "t", MaxRetries: 1, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxTimeout(t, 5*time.Second)
	hosts := []gse.Host{{AgentID: agentA}, {AgentID: agentB}, {IP: "10.0.0.1"}, {AgentID: "2:2001:DB8::7"}}
	entries, err := c.Proc.GetProcStatusV2(ctx, meta, hosts)
	if err != nil || len(entries) != 4 {
		t.Fatalf("status: %+v, %v", entries, err)
	}
	for i, h := range hosts {
		if e := entries[i]; e.Host.Key() != h.Key() || e.Target().Address() != h.Address() {
			t.Errorf("entry %d (bk_agent_id %s) matched %q as %s, want %s", i, e.BkAgentID, e.Host.Key(), e.Target(), h)
		}
	}
	listed, err := c.Proc.ListProcStatus(ctx, "gse")
	if err != nil || len(listed) != 2 {
		t.Fatalf("listing: %+v, %v", listed, err)
	}
	for i, want := range []string{agentA, agentB} {
		if got := listed[i].Target(); got.AgentID != want || got.Key() != listed[i].Host.Key() {
			t.Errorf("listed entry %d is addressed as %s (key %s), want agent id %s", i, got, listed[i].Host.Key(), want)
		}
	}
}

// 1015012 (stopping) is pending, never a failure: a sync call is re-sent,
// an operation waits for it until the deadline.
func TestGatewayStoppingIsPending(t *testing.T) {
	t.Parallel()
	c, sim, _ := newGateway(t, simulator.Options{}, nil)
	ctx := ctxTimeout(t, 5*time.Second)
	hosts := []gse.Host{host1}
	if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpStart, Spec: gwSpec}); err != nil {
		t.Fatal(err)
	}
	sim.AddHostFault(simulator.HostFault{API: "update_proc_info", IP: host1.IP, Code: gse.HostStopping, Times: 1})
	if done, err := c.Proc.UpdateProcInfo(ctx, meta, hosts, gwSpec); err != nil || len(done) != 1 {
		t.Fatalf("update: %v, %v", done, err)
	}
	if n := sim.Calls("update_proc_info"); n != 2 {
		t.Fatalf("update_proc_info sent %d times, want 2", n)
	}
	sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: host1.IP, Code: gse.HostStopping, Times: simulator.Forever})
	_, err := c.Proc.Operate(ctxTimeout(t, 300*time.Millisecond), gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpStop, Spec: gwSpec})
	var he *gse.HostsError
	if !errors.As(err, &he) || len(he.Failures) != 0 || len(he.Pending) != 1 || !he.DeadlinePassed() {
		t.Fatalf("err = %v, want %s pending at the deadline", err, host1)
	}
}

// list_agent_state in pages of 1000; agents that do not exist have no entry
// (1011003 when none does).
func TestListAgentState(t *testing.T) {
	t.Parallel()
	c, sim, _ := newGateway(t, simulator.Options{}, nil)
	ctx := ctxTimeout(t, 5*time.Second)
	hosts := make([]gse.Host, 0, 1501)
	for i := range 1500 {
		hosts = append(hosts, gse.Host{IP: fmt.Sprintf("10.1.%d.%d", i/250, i%250), BkCloudID: 1})
	}
	hosts = append(hosts, gse.Host{AgentID: "02000000ffffffffffffffffffffffffffff"}) // unknown
	sim.Gateway().SetAgentState("1:10.1.5.7", 3)
	states, err := c.Cluster.ListAgentState(ctx, hosts)
	if err != nil || len(states) != 1500 {
		t.Fatalf("%d states, %v", len(states), err)
	}
	for _, s := range states {
		if s.Running() != (s.BkAgentID != "1:10.1.5.7") {
			t.Fatalf("agent %s: status_code %d", s.BkAgentID, s.StatusCode)
		}
	}
	if n := sim.Calls("list_agent_state"); n != 2 {
		t.Fatalf("list_agent_state sent %d times, want 2 pages", n)
	}
	states, err = c.Cluster.ListAgentState(ctx, hosts[1500:])
	if err != nil || len(states) != 0 {
		t.Fatalf("no agent exists: %v, %v", states, err)
	}
}

// A host whose agent is down: list_agent_state says so, its status entry is
// absent (not "not registered": check the agent first), and an operation on
// it stays pending (115 forever) until the deadline, naming it.
func TestGatewayDownAgent(t *testing.T) {
	t.Parallel()
	c, sim, _ := newGateway(t, simulator.Options{}, nil)
	sim.Gateway().AddAgent(agentA, 0, "10.0.0.7")
	down := gse.Host{AgentID: agentA}
	hosts := []gse.Host{host1, down}
	ctx := ctxTimeout(t, 5*time.Second)
	if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpStart, Spec: gwSpec}); err != nil {
		t.Fatal(err)
	}
	sim.Gateway().SetAgentState(agentA, 3)
	states, err := c.Cluster.ListAgentState(ctx, hosts)
	if err != nil || len(states) != 2 || states[1].BkAgentID != agentA || states[1].Running() {
		t.Fatalf("agent states %+v, %v", states, err)
	}
	entries, err := c.Proc.GetProcStatusV2(ctx, meta, hosts)
	if err != nil || len(entries) != 1 || entries[0].Host.Key() != host1.Key() {
		t.Fatalf("status %+v, %v", entries, err)
	}
	_, err = c.Proc.Operate(ctxTimeout(t, 300*time.Millisecond), gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpStop, Spec: gwSpec})
	var he *gse.HostsError
	if !errors.As(err, &he) || len(he.Pending) != 1 || he.Pending[0] != down || !strings.Contains(err.Error(), "agent_id "+agentA) {
		t.Fatalf("err = %v, want the down agent pending", err)
	}
}

// The APIs the gateway does not serve are refused before any call.
func TestGatewayHasNoRegister(t *testing.T) {
	t.Parallel()
	c, sim, rec := newGateway(t, simulator.Options{}, nil)
	ctx := ctxTimeout(t, time.Second)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1}, spec); err == nil || !strings.Contains(err.Error(), "not served by the GSE 2.0 gateway") {
		t.Fatalf("register: %v", err)
	}
	if _, err := c.Proc.UnregisterProcInfo(ctx, meta, []gse.Host{host1}); err == nil {
		t.Fatal("unregister through the gateway")
	}
	if _, err := c.Job.Operate(ctx, gse.JobScope{Type: "biz", ID: "1"}, gse.OpStart, nil); err == nil || !strings.Contains(err.Error(), "no ESB endpoint") {
		t.Fatalf("JOB without an endpoint: %v", err)
	}
	if len(rec.all()) != 0 || len(sim.AllCalls()) != 0 {
		t.Fatalf("calls were made: %v", sim.AllCalls())
	}
}

// The simulator's gateway refuses credentials in the body and a request without the header.
func TestSimulatorGatewayWantsHeaderCredentials(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(simulator.New(simulator.Options{}))
	t.Cleanup(srv.Close)
	post := func(body, header string) map[string]any {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v2/proc/get_proc_status_v2", strings.NewReader(body))
		if header != "" {
			req.Header.Set("X-Bkapi-Authorization", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var env map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&env)
		return env
	}
	body := `{"meta":{"namespace":"gse","name":"p"},"agent_id_list":["0:10.0.0.1"]`
	if env := post(body+`,"bk_app_code":"a","bk_app_secret":"s","bk_username":"u"}`, `{"bk_app_code":"a","bk_app_secret":"s","bk_username":"u"}`); env["code"] != float64(1640001) {
		t.Fatalf("body credentials: %v", env)
	}
	if env := post(body+`}`, ""); env["code"] != float64(1640001) || env["message"] != `Parameters error [reason="app code cannot be empty"]` {
		t.Fatalf("no header: %v", env)
	}
	if env := post(body+`}`, `{"bk_app_code":"a","bk_app_secret":"s","bk_username":"u"}`); env["code"] != float64(0) {
		t.Fatalf("header credentials: %v", env)
	} else if _, ok := env["result"]; ok {
		t.Fatalf("a gateway reply with result: %v", env)
	}
}

// ESB mode keeps its body credentials and paths, and sends the tenant header too.
func TestESBTenantHeader(t *testing.T) {
	t.Parallel()
	var got seenRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		got = seenRequest{path: r.URL.Path, header: r.Header.Clone()}
		_ = json.Unmarshal(raw, &got.body)
		_, _ = io.WriteString(w, `{"result":true,"code":0,"data":{"proc_infos":[]}}`)
	}))
	t.Cleanup(srv.Close)
	c, err := gse.New(gse.Config{Endpoint: srv.URL, AppCode: testCode, AppSecret: testSecret, Username: "admin", TenantID: "tenant-a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Proc.GetProcStatusV2(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1}); err != nil {
		t.Fatal(err)
	}
	if got.path != "/api/c/compapi/v2/gse/get_proc_status_v2/" || got.header.Get("X-Bk-Tenant-Id") != "tenant-a" || got.body["bk_app_secret"] != testSecret || got.body["hosts"] == nil {
		t.Fatalf("ESB request %s, tenant %q, body %v", got.path, got.header.Get("X-Bk-Tenant-Id"), got.body)
	}
	if c.Gateway() {
		t.Fatal("an ESB client reports gateway mode")
	}
}
