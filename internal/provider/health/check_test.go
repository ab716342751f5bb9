package health_test

import (
	"cmp"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// env is a client over a simulator of 7 CMDB hosts (host 7 runs Windows),
// through ESB or the bk-job gateway.
type env struct {
	t     *testing.T
	ctx   context.Context
	c     *gse.Client
	sim   *simulator.Server
	scope gse.JobScope
	// gateway: GSE and JOB through the API gateway, GSE's hosts by agent id where they have one.
	gateway bool
}

func newEnv(t *testing.T, gateway bool) *env {
	t.Helper()
	sim := simulator.New(simulator.Options{CMDBHosts: 7, CMDBProcessTemplates: 3, InstantTasks: true, RecordRequests: true})
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	cfg := gse.Config{Endpoint: srv.URL, AppCode: "app", AppSecret: "secret", Username: "admin", RateLimit: 1000, BatchWindow: -1,
		PollInitial: time.Millisecond, PollMax: time.Millisecond, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond}
	if gateway {
		cfg.GatewayURL, cfg.JobGatewayURL, cfg.Username, cfg.BkToken = srv.URL, srv.URL, "", "token-of-admin"
	}
	c, err := gse.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return &env{t: t, ctx: ctx, c: c, sim: sim, scope: gse.BizScope(simulator.CMDBBizID), gateway: gateway}
}

// host is CMDB host id as the client addresses it.
func (e *env) host(id int64) gse.Host {
	h := e.sim.CMDB().Hosts()[id-1]
	return gse.Host{IP: h.InnerIP, BkCloudID: h.CloudID}
}

// start registers the GSE process ns/{name} on host id and starts it:
// through ESB, or through the gateway by the host's agent id, where the
// operation's spec registers it ({bk_cloud_id}:{ip} for a host without one).
func (e *env) start(name string, id int64) {
	e.t.Helper()
	meta, hosts := gse.Meta{Namespace: "ns", Name: name}, []gse.Host{e.host(id)}
	spec := &gse.Spec{Identity: gse.Identity{ProcName: name, SetupPath: "/data", PidPath: "/data/" + name + ".pid", User: "root"},
		MonitorPolicy: &gse.MonitorPolicy{AutoType: 1}}
	if h := e.sim.CMDB().Hosts()[id-1]; e.gateway {
		hosts = []gse.Host{{AgentID: cmp.Or(h.AgentID, "0:"+h.InnerIP)}}
	} else if _, err := e.c.Proc.RegisterProcInfo(e.ctx, meta, hosts, spec); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.c.Proc.Operate(e.ctx, gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpStart, Spec: spec}); err != nil {
		e.t.Fatal(err)
	}
}

// target is the instance key on host id with ports.
func (e *env) target(key string, id int64, ports ...int) health.Target {
	return health.Target{Key: key, Host: e.host(id), BkHostID: id, Ports: ports}
}

// check runs Check and fails the test on an error.
func (e *env) check(targets []health.Target, checks health.Checks) map[string]string {
	e.t.Helper()
	got, err := health.Check(e.ctx, e.c, e.scope, targets, checks)
	if err != nil {
		e.t.Fatal(err)
	}
	return got
}

// scripts is how many fast_execute_script tasks JOB was asked for, through
// either door.
func (e *env) scripts() int {
	return e.sim.Calls("jobv3/fast_execute_script")
}

// wantFailed checks that exactly the keys of want failed, each reason
// holding every text of its entry.
func wantFailed(t *testing.T, got map[string]string, want map[string][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("failed %v, want the keys of %v", got, want)
	}
	for k, texts := range want {
		for _, s := range texts {
			if !strings.Contains(got[k], s) {
				t.Errorf("%s: reason %q lacks %q", k, got[k], s)
			}
		}
	}
}

// The TCP probe: an instance whose process runs on its host is healthy; one
// whose host runs nothing fails naming both ports; a port closed although
// nginx runs fails naming that port alone. The hosts share one port set:
// one task. Through ESB, and through the gateways with nginx started on
// host 4 by its agent id.
func TestCheckTCP(t *testing.T) {
	t.Parallel()
	for _, gateway := range []bool{false, true} {
		e := newEnv(t, gateway)
		e.start("nginx_1", 1)
		e.start("nginx_2", 3)
		e.start("nginx_1", 4)
		e.sim.JOBv3().SetPortClosed(3, 8081, true)
		targets := []health.Target{e.target("a", 1, 8080, 8081), e.target("b", 2, 8080, 8081), e.target("c", 3, 8080, 8081), e.target("d", 4, 8080, 8081)}
		got := e.check(targets, health.Checks{TCP: true})
		wantFailed(t, got, map[string][]string{
			"b": {"10.0.0.2 (bk_cloud_id 0) [bk_host_id 2]: TCP ports 8080, 8081 not listening", "exit code 1"},
			"c": {"TCP port 8081 not listening"},
		})
		if n := e.scripts(); n != 1 {
			t.Errorf("gateway %v: %d fast_execute_script tasks, want 1", gateway, n)
		}
	}
}

// An instance stopped after it was healthy fails the next check.
func TestCheckTCPStopped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	e.start("nginx_1", 1)
	targets := []health.Target{e.target("a", 1, 8080, 8081)}
	if got := e.check(targets, health.Checks{TCP: true}); len(got) != 0 {
		t.Fatalf("running: failed %v", got)
	}
	if err := e.sim.GSE().Drift(simulator.DriftStop, "ns", "nginx_1", 0, "10.0.0.1"); err != nil {
		t.Fatal(err)
	}
	wantFailed(t, e.check(targets, health.Checks{TCP: true}), map[string][]string{"a": {"TCP ports 8080, 8081 not listening"}})
}

// Two port sets in one batch are two tasks, each named for the probe in
// JOB's history; a target is judged on its own ports only, a range's ports
// each (svc3 binds 9000-9002), and a target without ports is not probed.
func TestCheckTwoPortSets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	rows := []any{map[string]any{"row_id": 1, "ip": "2", "port": "9000-9002", "protocol": "1", "enable": true}}
	if err := e.sim.CMDB().EditProcessTemplate(4, map[string]any{"bind_info": rows}); err != nil {
		t.Fatal(err)
	}
	e.start("nginx_1", 1)
	e.start("svc3_1", 2)
	e.sim.JOBv3().SetPortClosed(2, 9001, true)
	targets := []health.Target{
		e.target("nginx", 1, 8080, 8081), e.target("svc3", 2, 9000, 9001, 9002), e.target("svc3-low", 2, 9000), e.target("agent", 3),
	}
	got := e.check(targets, health.Checks{TCP: true})
	wantFailed(t, got, map[string][]string{"svc3": {"TCP port 9001 not listening"}})
	if n := e.scripts(); n != 2 {
		t.Errorf("%d fast_execute_script tasks, want 2 (one per port set)", n)
	}
	for _, r := range e.sim.Requests() {
		if strings.HasSuffix(r.Path, "fast_execute_script/") && !strings.Contains(string(r.Body), `"task_name":"terraform: gse_service tcp probe"`) {
			t.Errorf("a probe's task is not named for it in JOB's history: %s", r.Body)
		}
	}
}

// The user's script: one task on every host of the batch, a host once; a
// script failing on one host fails that host's targets alone, with its exit
// code and the last five lines of its output that are not blank; the
// output of a batch found healthy is never read.
func TestCheckScript(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	targets := []health.Target{e.target("a1", 1), e.target("a2", 1), e.target("b", 2), e.target("c", 3)}
	script := &health.Script{Content: "#!/bin/sh\n/data/check_health\n", Account: "root"}
	if got := e.check(targets, health.Checks{Script: script}); len(got) != 0 {
		t.Errorf("passing script: failed %v", got)
	}
	if n := e.sim.Calls("jobv3/batch_get_job_instance_ip_log"); n != 0 {
		t.Errorf("a healthy batch read its logs %d times", n)
	}
	e.sim.JOBv3().SetScriptFails([]int64{1}, "check_health", 3, "banner\nstep 1\nstep 2\n\nstep 3\nnginx: 2 workers of 4\ndegraded\n")
	got := e.check(targets, health.Checks{Script: script})
	reason := []string{"10.0.0.1 (bk_cloud_id 0) [bk_host_id 1]: the health script exited 3", `output "step 1\nstep 2\nstep 3\nnginx: 2 workers of 4\ndegraded"`}
	wantFailed(t, got, map[string][]string{"a1": reason, "a2": reason})
	if n := e.scripts(); n != 2 {
		t.Errorf("%d fast_execute_script tasks for two checks, want 2", n)
	}
	for _, r := range e.sim.Requests() {
		if strings.HasSuffix(r.Path, "fast_execute_script/") && !strings.Contains(string(r.Body), `"host_id_list":[1,2,3]`) {
			t.Errorf("the script's task targets %s, want hosts 1, 2 and 3 once each", r.Body)
		}
	}
}

// Both checks at once on a Windows host (no Cygwin) and a host whose agent
// JOB finds down: each fails with what JOB reported, both reasons joined.
func TestCheckWindowsAndAgentDown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	e.sim.JOBv3().SetAgentDown(2, true)
	targets := []health.Target{e.target("win", 7, 8080), e.target("down", 2, 8080)}
	got := e.check(targets, health.Checks{TCP: true, Script: &health.Script{Content: "true\n", Account: "root"}})
	wantFailed(t, got, map[string][]string{
		"win":  {"[bk_host_id 7]: the TCP probe exited 127", "no Cygwin", "; the health script exited 127"},
		"down": {"10.0.0.2 (bk_cloud_id 0) [bk_host_id 2]: the TCP probe did not run: JOB host status 1 (the GSE agent is down or not installed); the health script", "the health script did not run"},
	})
}

// Without a bk_host_id JOB takes the host by IPv4; a host with neither is
// an error; no targets check nothing; JOB's refusal (an account it lacks)
// is an error naming the check.
func TestCheckAddressingAndRefusal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	e.start("nginx_1", 1)
	byIP := []health.Target{{Key: "a", Host: e.host(1), Ports: []int{8080}}, {Key: "b", Host: e.host(2), Ports: []int{8080}}}
	wantFailed(t, e.check(byIP, health.Checks{TCP: true}), map[string][]string{"b": {"10.0.0.2 (bk_cloud_id 0): TCP port 8080 not listening"}})

	agentOnly := []health.Target{{Key: "x", Host: gse.Host{AgentID: "0200000007525400000000000000000000000002"}}}
	if _, err := health.Check(e.ctx, e.c, e.scope, agentOnly, health.Checks{TCP: true}); err == nil || !strings.Contains(err.Error(), "no bk_host_id nor IPv4 address for the host of x") {
		t.Errorf("a host without bk_host_id or IPv4: error %v", err)
	}
	if got, err := health.Check(e.ctx, e.c, e.scope, nil, health.Checks{TCP: true, Script: &health.Script{Content: "true\n"}}); err != nil || len(got) != 0 {
		t.Errorf("no targets: %v %v, want nothing checked", got, err)
	}
	_, err := health.Check(e.ctx, e.c, e.scope, byIP, health.Checks{Script: &health.Script{Content: "true\n", Account: "nobody"}})
	if err == nil || !strings.Contains(err.Error(), "the health script could not start") || !strings.Contains(err.Error(), "1244003") {
		t.Errorf("an account JOB lacks: error %v", err)
	}
}
