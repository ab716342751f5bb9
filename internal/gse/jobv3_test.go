package gse_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// newJobV3 is a client of JOB's v3 APIs over a simulator with n CMDB
// hosts: through ESB, or the bk-job gateway with a verified user (bk_token);
// tweaks change its configuration.
func newJobV3(t *testing.T, n int, gateway bool, tweaks ...func(*gse.Config)) (*gse.Client, *simulator.Server) {
	t.Helper()
	sim := simulator.New(simulator.Options{AppCode: testCode, AppSecret: testSecret, CMDBHosts: n})
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	cfg := gse.Config{Endpoint: srv.URL, AppCode: testCode, AppSecret: testSecret, Username: "admin", RateLimit: testRate,
		PollInitial: time.Millisecond, PollMax: time.Millisecond, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond}
	if gateway {
		cfg.JobGatewayURL, cfg.Username, cfg.BkToken = srv.URL, "", "token-of-admin"
	}
	for _, tweak := range tweaks {
		tweak(&cfg)
	}
	c, err := gse.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, sim
}

// A file pushed by IP and by host id, the job polled to its per-host
// results, and read back by a script, through ESB and the bk-job gateway.
func TestPushConfigFile(t *testing.T) {
	t.Parallel()
	for _, gateway := range []bool{false, true} {
		c, sim := newJobV3(t, 10, gateway)
		ctx := ctxTimeout(t, 10*time.Second)
		scope := gse.BizScope(simulator.CMDBBizID)
		content := []byte("listen 8080;\n")
		sim.JOBv3().SetAgentDown(3, true)
		for _, to := range []gse.JobTargets{{IPs: []gse.JobIP{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}}}, {HostIDs: []int64{2, 3}}} {
			id, err := c.Job.PushConfigFile(ctx, scope, gse.ConfigFile{Path: "/data/conf", Name: "app.conf", Account: "root", Content: content}, to)
			if err != nil {
				t.Fatalf("gateway %v: push: %v", gateway, err)
			}
			st, err := c.Job.WaitJob(ctx, scope, id)
			if err != nil || len(st.Steps) != 1 {
				t.Fatalf("gateway %v: wait: %+v %v", gateway, st, err)
			}
			for _, h := range st.Steps[0].Hosts {
				if h.OK() == (h.HostID == 3) {
					t.Errorf("gateway %v: host %d: status %d", gateway, h.HostID, h.Status)
				}
			}
		}
		if b, ok := sim.JOBv3().File(1, "/data/conf/app.conf"); !ok || string(b) != string(content) {
			t.Errorf("gateway %v: host 1 holds %q", gateway, b)
		}
		if _, ok := sim.JOBv3().File(3, "/data/conf/app.conf"); ok {
			t.Errorf("gateway %v: the file reached a host whose agent is down", gateway)
		}
		run, err := c.Job.ExecuteScript(ctx, scope, gse.Script{Content: "f='/data/conf/app.conf'\nsha256sum \"$f\"\n", Account: "root", TimeoutSecs: 60},
			gse.JobTargets{HostIDs: []int64{1, 4}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Job.WaitScript(ctx, scope, run); err != nil {
			t.Fatal(err)
		}
		logs, err := c.Job.ScriptLogs(ctx, scope, run, []int64{1, 4})
		sum := sha256.Sum256(content)
		if err != nil || strings.TrimSpace(logs[1]) != hex.EncodeToString(sum[:]) || strings.TrimSpace(logs[4]) != "MISSING" {
			t.Fatalf("gateway %v: logs %v, %v", gateway, logs, err)
		}
	}
}

// Several files in one push land together on each host; a job that
// succeeded is not read again for its per-host results (every host
// succeeded), one that failed is, and names the host that failed.
func TestPushConfigFilesReadsHostsOnlyOnFailure(t *testing.T) {
	t.Parallel()
	sim := simulator.New(simulator.Options{AppCode: testCode, AppSecret: testSecret, CMDBHosts: 4, RecordRequests: true})
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	c, err := gse.New(gse.Config{Endpoint: srv.URL, AppCode: testCode, AppSecret: testSecret, Username: "admin", RateLimit: testRate,
		PollInitial: time.Millisecond, PollMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxTimeout(t, 10*time.Second)
	scope := gse.BizScope(simulator.CMDBBizID)
	hostReads := func() (n int) {
		for _, r := range sim.Requests() {
			if strings.Contains(r.Path, "get_job_instance_status") && strings.Contains(string(r.Body), `"return_ip_result":true`) {
				n++
			}
		}
		return n
	}
	files := []gse.ConfigFile{{Path: "/data/conf", Name: "a_1.conf", Account: "root", Content: []byte("one\n")}, {Path: "/data/conf", Name: "a_2.conf", Account: "root", Content: []byte("two\n")}}
	push := func(ids ...int64) *gse.JobStatus {
		t.Helper()
		id, err := c.Job.PushConfigFiles(ctx, scope, files, gse.JobTargets{HostIDs: ids})
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Job.WaitJob(ctx, scope, id)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := push(1, 2); !st.Succeeded() || len(st.Steps) != 1 || len(st.Steps[0].Hosts) != 0 || hostReads() != 0 {
		t.Fatalf("a push that succeeded: %+v, %d reads of its hosts; want succeeded and none", st, hostReads())
	}
	for _, f := range files {
		if b, ok := sim.JOBv3().File(2, "/data/conf/"+f.Name); !ok || string(b) != string(f.Content) {
			t.Errorf("host 2: %s holds %q", f.Name, b)
		}
	}
	sim.JOBv3().SetAgentDown(4, true)
	st := push(3, 4)
	if st.Succeeded() || hostReads() != 1 || len(st.Steps) != 1 {
		t.Fatalf("a push that failed: %+v, %d reads of its hosts; want one", st, hostReads())
	}
	for _, h := range st.Steps[0].Hosts {
		if h.OK() == (h.HostID == 4) {
			t.Errorf("host %d: status %d", h.HostID, h.Status)
		}
	}
}

// JOB's refusals: an account alias it does not have; bk_username alone on the bk-job gateway.
func TestPushConfigFileRefusals(t *testing.T) {
	t.Parallel()
	c, _ := newJobV3(t, 5, false)
	ctx := ctxTimeout(t, 5*time.Second)
	_, err := c.Job.PushConfigFile(ctx, gse.BizScope(2), gse.ConfigFile{Path: "/d", Name: "a", Account: "nginx", Content: []byte("x")}, gse.JobTargets{HostIDs: []int64{1}})
	var ae *gse.APIError
	if !errors.As(err, &ae) || ae.Code != 1244003 || !strings.Contains(ae.Message, "nginx") {
		t.Fatalf("unknown account: %v", err)
	}
	srv := httptest.NewServer(simulator.New(simulator.Options{AppCode: testCode, AppSecret: testSecret, CMDBHosts: 5}))
	t.Cleanup(srv.Close)
	c, err = gse.New(gse.Config{JobGatewayURL: srv.URL, Endpoint: srv.URL, AppCode: testCode, AppSecret: testSecret, Username: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Job.PushConfigFile(ctx, gse.BizScope(2), gse.ConfigFile{Path: "/d", Name: "a", Account: "root", Content: []byte("x")}, gse.JobTargets{HostIDs: []int64{1}})
	if gse.KindOf(err) != gse.KindAuth || !strings.Contains(err.Error(), "bk_username is not verified") {
		t.Fatalf("bk_username on the bk-job gateway: %v", err)
	}
}

// A file larger than the gateway's body limit is refused there (1641301),
// before JOB sees it.
func TestPushConfigFileTooLarge(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(simulator.New(simulator.Options{AppCode: testCode, AppSecret: testSecret, CMDBHosts: 2, GatewayBodyLimit: 1024}))
	t.Cleanup(srv.Close)
	c, err := gse.New(gse.Config{JobGatewayURL: srv.URL, Endpoint: srv.URL, AppCode: testCode, AppSecret: testSecret, BkToken: "t"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Job.PushConfigFile(ctxTimeout(t, 5*time.Second), gse.BizScope(2), gse.ConfigFile{Path: "/d", Name: "a", Account: "root", Content: []byte(strings.Repeat("x", 2048))},
		gse.JobTargets{HostIDs: []int64{1}})
	var ae *gse.APIError
	if !errors.As(err, &ae) || ae.Code != gse.CodeGatewayBodyTooBig || !strings.Contains(ae.Message, "exceeds the limit 1024") {
		t.Fatalf("err = %v", err)
	}
}
