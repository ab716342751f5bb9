package rollout_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// The runner works through GSE 2.0's gateway as through ESB: it only calls
// Proc.Operate and the status read. Hosts given by agent id go after those
// given by IP, and wait_running reads the status by agent id.
func TestRolloutThroughGateway(t *testing.T) {
	t.Parallel()
	const stage = "/api/bk-gse/prod"
	sim := simulator.New(simulator.Options{AppCode: acctest.AppCode, AppSecret: acctest.AppSecret, TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}})
	srv := httptest.NewServer(http.StripPrefix(stage, sim))
	t.Cleanup(srv.Close)
	c, err := gse.New(gse.Config{
		GatewayURL: srv.URL + stage, AppCode: acctest.AppCode, AppSecret: acctest.AppSecret, Username: "admin",
		PollInitial: time.Millisecond, PollMax: 5 * time.Millisecond, RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond,
		RateLimit: acctest.Rate,
	})
	if err != nil {
		t.Fatal(err)
	}
	const agentB, agentA = "0200000007525400f355781710390005465d", "0200000007525400f355781710390005465c"
	sim.Gateway().AddAgent(agentA, 1, "10.0.9.1")
	sim.Gateway().AddAgent(agentB, 1, "10.0.9.2")
	hosts := []gse.Host{{AgentID: agentB}, {IP: "10.0.0.2"}, {AgentID: agentA}, {IP: "10.0.0.1"}}
	meta := gse.Meta{Namespace: "gse", Name: "gw"}
	spec := &gse.Spec{
		Identity:      gse.Identity{ProcName: "gw", SetupPath: "/opt/gw", PidPath: "/opt/gw/gw.pid", User: "root"},
		Control:       gse.Control{StartCmd: "./start.sh", RestartCmd: "./restart.sh"},
		MonitorPolicy: &gse.MonitorPolicy{AutoType: 1},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	step := rollout.Step[gse.Host]{What: "start", Target: meta, Place: rollout.HostPlace, NotRunning: &rollout.RunningCheck[gse.Host]{Client: c, Query: status.GSENotRunning(c, meta)}, Run: func(ctx context.Context, batch []gse.Host) error {
		_, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: batch, Op: gse.OpStart, Spec: spec})
		return err
	}}
	done, err := rollout.Run(ctx, &rollout.Settings{Size: 2, WaitRunning: true}, hosts, step)
	if err != nil || len(done) != 4 {
		t.Fatalf("done on %v: %v", done, err)
	}
	got, err := acctest.OpBatches(sim, 0, int(gse.OpStart))
	if want := [][]string{{"10.0.0.1", "10.0.0.2"}, {"10.0.9.1", "10.0.9.2"}}; err != nil || !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("batches %v (%v), want %v", got, err, want)
	}

	// An agent that is down never answers: its batch fails at the deadline, naming it.
	sim.Gateway().SetAgentState(agentA, 3)
	short, cancelShort := context.WithTimeout(ctx, 2*time.Second) // room for the healthy batches on a loaded machine
	defer cancelShort()
	step.Run = func(ctx context.Context, batch []gse.Host) error {
		_, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: batch, Op: gse.OpRestart, Spec: spec})
		return err
	}
	done, err = rollout.Run(short, &rollout.Settings{Size: 2}, hosts, step)
	if len(done) != 3 || err == nil || !strings.Contains(err.Error(), "agent_id "+agentA+": no result (still pending)") {
		t.Fatalf("done on %v: %v", done, err)
	}
}
