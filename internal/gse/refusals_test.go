package gse_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// ESB's 1306201 is any failed request to the backend: a read of status or
// results is sent again and succeeds; an operate, which GSE may have
// started, is not sent again and reports what it is.
func TestESBBackendFailureIsTransient(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}})
	ctx := ctxTimeout(t, 10*time.Second)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1}, spec); err != nil {
		t.Fatal(err)
	}
	sim.AddFault(simulator.Fault{API: "get_proc_status_v2", Code: gse.CodeESBBackendFailed, Times: 2},
		simulator.Fault{API: "get_proc_operate_result_v2", Code: gse.CodeESBBackendFailed, Times: 2})
	if _, err := c.Proc.GetProcStatusV2(ctx, meta, []gse.Host{host1}); err != nil {
		t.Fatalf("status read through two 1306201: %v", err)
	}
	if out, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: gse.OpStart, Spec: spec}); err != nil || len(out.Hosts) != 1 {
		t.Fatalf("operate polled through two 1306201: %v %v", out, err)
	}
	sim.AddFault(simulator.Fault{API: "operate_proc_v2", Code: gse.CodeESBBackendFailed})
	_, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: gse.OpStop, Spec: spec})
	var ae *gse.APIError
	if !errors.As(err, &ae) || ae.Code != gse.CodeESBBackendFailed || !ae.MayHaveActed() || !strings.Contains(err.Error(), "response time exceeds 30 seconds") {
		t.Fatalf("operate refused with 1306201: %v", err)
	}
	if n := sim.Calls("operate_proc_v2"); n != 2 {
		t.Errorf("operate_proc_v2 sent %d times, want 2 (the second submit not sent again)", n)
	}
}

// A JOB that fails for a while (1306201 with a timeout) is not a JOB 3.7:
// the status query is sent again; only "Status Code: 404" means removed.
func TestJobOutageIsNotRemoved(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	sim.AddFault(simulator.Fault{API: "job/get_proc_result", Code: gse.CodeESBBackendFailed, Times: 2})
	out, err := c.Job.Status(ctxTimeout(t, 10*time.Second), gse.JobScope{Type: "biz", ID: "3"}, jobProc("10.0.0.1"))
	if err != nil || len(out.IPs) != 1 {
		t.Fatalf("status through a JOB outage: %v %v", out, err)
	}
}

// bk-cmdb's apiserver refuses for its rate limit with its own keys
// (bk_error_code 1199997, HTTP 200): the page is paced and read again.
func TestCMDBLimiterIsRetried(t *testing.T) {
	t.Parallel()
	for _, gateway := range []bool{false, true} {
		c, sim := newCMDB(t, 50, gateway)
		api := map[bool]string{false: "cc/list_biz_hosts", true: "cc/list_biz_hosts"}[gateway]
		sim.AddFault(simulator.Fault{API: api, Code: 1199997, Times: 2})
		hosts, err := c.CMDB.ListBizHosts(ctxTimeout(t, 10*time.Second), gse.HostQuery{BizID: simulator.CMDBBizID})
		if err != nil || len(hosts) != 50 {
			t.Fatalf("gateway %v: %d hosts, %v", gateway, len(hosts), err)
		}
		if th := c.Throttling(); th.Refused != 2 || th.Code != 1199997 {
			t.Errorf("gateway %v: throttling %+v, want the 2 refusals of 1199997", gateway, th)
		}
	}
}

// bk-cmdb's 1199027 (no user reached it) comes as HTTP 500 with its own
// keys: read as a refused credential, not a server failure sent again.
func TestCMDBNoUserIsACredential(t *testing.T) {
	t.Parallel()
	c, sim := newCMDB(t, 5, true)
	sim.AddFault(simulator.Fault{API: "cc/list_biz_hosts", Code: 1199027})
	_, err := c.CMDB.ListBizHosts(ctxTimeout(t, 10*time.Second), gse.HostQuery{BizID: simulator.CMDBBizID})
	var ae *gse.APIError
	if !errors.As(err, &ae) || ae.Code != 1199027 || ae.HTTPStatus != 500 || ae.Kind() != gse.KindAuth || !strings.Contains(ae.Message, "'user' authorization") {
		t.Fatalf("err = %v", err)
	}
	if n := sim.Calls("cc/list_biz_hosts"); n != 1 {
		t.Errorf("sent %d times, want 1", n)
	}
}

// An error names the id the server logged: the X-Request-Id the client
// sent (the gateway keeps it), and the X-Bkapi-Request-ID the gateway gave
// the call in place of the client's.
func TestGatewayErrorNamesTheLoggedRequestID(t *testing.T) {
	t.Parallel()
	c, sim, rec := newGateway(t, simulator.Options{}, nil)
	sim.AddFault(simulator.Fault{API: "get_proc_status_v2", Code: 1640301})
	_, err := c.Proc.GetProcStatusV2(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1})
	var ae *gse.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v", err)
	}
	sent := rec.all()[0].header.Get("X-Request-Id")
	if sent == "" || ae.RequestID != sent || len(ae.GatewayRequestID) != 36 || ae.GatewayRequestID == sent ||
		!strings.Contains(err.Error(), "request id "+sent+", gateway request id "+ae.GatewayRequestID) {
		t.Fatalf("sent X-Request-Id %q; err = %v (ids %q, %q)", sent, err, ae.RequestID, ae.GatewayRequestID)
	}
}

// Credentials refused through the gateway (HTTP 400 1640001 with a reason)
// are a credential error, the kind sent named; a tenant refused (1640302
// CROSS_TENANT_FORBIDDEN) a tenant error; the IP restriction by the same
// number another.
func TestGatewayRefusalKinds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts simulator.Options
		tune func(*gse.Config)
		kind gse.Kind
		says string
	}{
		{"wrong secret", simulator.Options{}, func(cfg *gse.Config) { cfg.AppSecret = "wrong-secret" }, gse.KindAuth,
			`code 1640001 INVALID_ARGS: Parameters error [reason="bk_app_code or bk_app_secret is incorrect"] (the bk_app_code/bk_app_secret with bk_username credentials sent were refused)`},
		{"unverified user", simulator.Options{VerifiedUsersOnly: true}, nil, gse.KindAuth, "the user indicated by bk_username is not verified"},
		{"no tenant", simulator.Options{TenantID: "t1"}, func(cfg *gse.Config) { cfg.TenantID = "" }, gse.KindTenant, "[AH1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := tc.opts
			c, sim, _ := newGateway(t, opts, tc.tune)
			_, err := c.Proc.GetProcStatusV2(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1})
			if gse.KindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v (kind %v), want kind %v saying %q", err, gse.KindOf(err), tc.kind, tc.says)
			}
			if n := sim.Calls("get_proc_status_v2"); n != 1 {
				t.Errorf("sent %d times, want 1", n)
			}
		})
	}
	c, sim, _ := newGateway(t, simulator.Options{}, nil)
	sim.AddFault(simulator.Fault{API: "get_proc_status_v2", Code: 1640302, Message: `Request rejected by ip restriction [ip="10.1.1.1" reason="ip not allowed"]`})
	if _, err := c.Proc.GetProcStatusV2(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1}); gse.KindOf(err) != gse.KindRestricted {
		t.Fatalf("IP restriction: %v (kind %v)", err, gse.KindOf(err))
	}
}

// gatewayOperateAll runs a start of n processes at once through the
// gateway, batched into one operate_proc_multi task.
func gatewayOperateAll(t *testing.T, c *gse.Client, n int) []error {
	t.Helper()
	ctx := ctxTimeout(t, 5*time.Second)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := gse.Meta{Namespace: "gse", Name: fmt.Sprintf("p%d", i)}
			_, errs[i] = c.Proc.Operate(ctx, gse.OperateRequest{Meta: m, Hosts: []gse.Host{{IP: "10.0.0.9"}}, Op: gse.OpStart, Spec: gwSpec})
		}()
	}
	wg.Wait()
	return errs
}

// A batch refused for its credentials is refused for every item: each
// caller gets the credential error, and no item is sent again alone.
func TestGatewayBatchRefusedCredentialsNoStorm(t *testing.T) {
	t.Parallel()
	c, sim, _ := newGateway(t, simulator.Options{}, func(cfg *gse.Config) { cfg.BatchWindow, cfg.AppSecret = 50*time.Millisecond, "wrong-secret" })
	for i, err := range gatewayOperateAll(t, c, 3) {
		if gse.KindOf(err) != gse.KindAuth {
			t.Errorf("caller %d: %v, want the credential refusal", i, err)
		}
	}
	if m, v2 := sim.Calls("operate_proc_multi"), sim.Calls("operate_proc_v2"); m != 1 || v2 != 0 {
		t.Fatalf("operate_proc_multi %d, operate_proc_v2 %d; want 1 and 0", m, v2)
	}
}

// A gateway without operate_proc_multi answers 1640401 API_NOT_FOUND: the
// batcher falls back to operate_proc_v2 and stays there.
func TestGatewayWithoutOperateProcMulti(t *testing.T) {
	t.Parallel()
	c, sim, _ := newGateway(t, simulator.Options{}, func(cfg *gse.Config) { cfg.BatchWindow = 50 * time.Millisecond })
	sim.RemoveAPIs("operate_proc_multi")
	for round := range 2 {
		if err := errors.Join(gatewayOperateAll(t, c, 3)...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	if m, v2 := sim.Calls("operate_proc_multi"), sim.Calls("operate_proc_v2"); m != 1 || v2 != 6 {
		t.Fatalf("operate_proc_multi %d, operate_proc_v2 %d; want 1 and 6", m, v2)
	}
}
