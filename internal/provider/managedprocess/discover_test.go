package managedprocess

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// staleSync serves the simulator, but sync_proc_status also lists extra
// entries: GSE's cached view still holding hosts the process has left.
func staleSync(sim *simulator.Server, extra []map[string]any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/sync_proc_status/") {
			sim.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		sim.ServeHTTP(rec, r)
		var env map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if data, ok := env["data"].(map[string]any); ok {
			infos, _ := data["proc_infos"].([]any)
			for _, e := range extra {
				infos = append(infos, e)
			}
			data["proc_infos"], data["count"] = infos, len(infos)
		}
		b, _ := json.Marshal(env)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, bytes.NewReader(b))
	})
}

func newDiscoverClient(t testing.TB, h http.Handler) *gse.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := gse.New(gse.Config{Endpoint: srv.URL, AppCode: "tf-acc", AppSecret: "acc-secret", Username: "admin", PollInitial: time.Millisecond, PollMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Hosts (and whole processes) that only the stale listing still holds are
// dropped: each process is confirmed with get_proc_status_v2.
func TestDiscoverProcessesConfirmsStaleListing(t *testing.T) {
	t.Parallel()
	sim := simulator.New(simulator.Options{AppCode: "tf-acc", AppSecret: "acc-secret"})
	stale := func(name, ip string) map[string]any {
		return map[string]any{"meta": map[string]any{"namespace": "gse", "name": name}, "host": map[string]any{"ip": ip, "bk_cloud_id": 0}, "status": 1}
	}
	c := newDiscoverClient(t, staleSync(sim, []map[string]any{stale("web", "10.0.0.9"), stale("gone", "10.0.0.1")}))
	ctx := context.Background()
	if _, err := c.Proc.RegisterProcInfo(ctx, gse.Meta{Namespace: "gse", Name: "web", Labels: map[string]string{"team": "web"}},
		[]gse.Host{{IP: "10.0.0.1"}, {IP: "10.0.0.2", BkCloudID: 1}}, &gse.Spec{
			Identity: gse.Identity{ProcName: "web", SetupPath: "/opt/web", PidPath: "/opt/web/p.pid", User: "root"},
			Resource: &gse.Resource{CPU: 1, Mem: 1}, MonitorPolicy: &gse.MonitorPolicy{AutoType: 1},
		}); err != nil {
		t.Fatal(err)
	}
	found, err := discoverProcesses(ctx, c, "gse", func(gse.Meta) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range found {
		for _, en := range p.Entries {
			got = append(got, fmt.Sprintf("%s@%d:%s", p.Meta.Name, en.Host.BkCloudID, en.Host.IP))
		}
	}
	if want := "web@0:10.0.0.1 web@1:10.0.0.2"; strings.Join(got, " ") != want {
		t.Fatalf("discovered %v, want %s (no stale host, no process that is gone)", got, want)
	}
	if found[0].Meta.Labels["team"] != "web" {
		t.Fatalf("labels %v, want those get_proc_status_v2 reports", found[0].Meta.Labels)
	}
	if n := sim.Calls("get_proc_status_v2"); n != 2 {
		t.Fatalf("get_proc_status_v2 called %d times, want one per process listed", n)
	}
}

// Discovery of one process on many hosts: the listing pages and the
// confirming reads, both in calls of 1000 hosts.
// Run it with: go test ./internal/provider/managedprocess/ -run '^$' -bench DiscoverProcesses -benchtime 5x.
func BenchmarkDiscoverProcesses(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("hosts=%d", n), func(b *testing.B) {
			sim := simulator.New(simulator.Options{AppCode: "tf-acc", AppSecret: "acc-secret"})
			c := newDiscoverClient(b, sim)
			hosts := make([]gse.Host, n)
			for i := range hosts {
				hosts[i] = gse.Host{IP: fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256)}
			}
			spec := &gse.Spec{Identity: gse.Identity{ProcName: "web", SetupPath: "/opt/web", PidPath: "/opt/web/p.pid", User: "root"},
				Resource: &gse.Resource{CPU: 1, Mem: 1}, MonitorPolicy: &gse.MonitorPolicy{AutoType: 1}}
			if _, err := c.Proc.RegisterProcInfo(context.Background(), gse.Meta{Namespace: "gse", Name: "web"}, hosts, spec); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				found, err := discoverProcesses(context.Background(), c, "gse", func(m gse.Meta) bool { return m.Name == "web" })
				if err != nil || len(found) != 1 || len(found[0].Entries) != n {
					b.Fatalf("found %d processes, err %v", len(found), err)
				}
			}
		})
	}
}

// Through the gateway, discovered hosts are addressed as sync_proc_status
// names them, by their top-level bk_agent_id: a host with an agent id is
// confirmed and kept by it (agent-id installations refuse {cloud}:{ip}); a
// host whose agent id is {cloud}:{ip} (agent-id mode off) by ip and cloud id.
func TestDiscoverProcessesGatewayAgentIDs(t *testing.T) {
	t.Parallel()
	sim := simulator.New(simulator.Options{AppCode: "tf-acc", AppSecret: "acc-secret", RecordRequests: true})
	sim.Gateway().AddAgent(agentA, 0, "10.0.0.5")
	sim.Gateway().AddAgent(agentB, 2, "10.0.0.6")
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	c, err := gse.New(gse.Config{GatewayURL: srv.URL, AppCode: "tf-acc", AppSecret: "acc-secret", Username: "admin", PollInitial: time.Millisecond, PollMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	spec := &gse.Spec{Identity: gse.Identity{ProcName: "web", SetupPath: "/opt/web", PidPath: "/opt/web/p.pid", User: "root"},
		Control: gse.Control{StartCmd: "./start.sh"}, MonitorPolicy: &gse.MonitorPolicy{AutoType: 1}}
	if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: gse.Meta{Namespace: "gse", Name: "web"},
		Hosts: []gse.Host{{AgentID: agentB}, {AgentID: agentA}, {IP: "10.0.0.1", BkCloudID: 1}}, Op: gse.OpStart, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	found, err := discoverProcesses(ctx, c, "gse", func(gse.Meta) bool { return true })
	if err != nil || len(found) != 1 {
		t.Fatalf("found %+v, %v", found, err)
	}
	var got []string
	for _, h := range found[0].Hosts() {
		got = append(got, fmt.Sprintf("%s|%s|%s", h.AgentID.ValueString(), h.IP.ValueString(), h.BkCloudID.String()))
	}
	if want := "" + agentA + "||<null> " + agentB + "||<null> |10.0.0.1|1"; strings.Join(got, " ") != want {
		t.Fatalf("discovered hosts %v, want %s", got, want)
	}
	for _, r := range sim.Requests() {
		if strings.HasSuffix(r.Path, "/get_proc_status_v2") && (!bytes.Contains(r.Body, []byte(agentA)) || bytes.Contains(r.Body, []byte("0:10.0.0.5"))) {
			t.Fatalf("confirmed by %s, want agent ids", r.Body)
		}
	}
}
