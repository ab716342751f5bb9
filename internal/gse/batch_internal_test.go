package gse

import (
	"context"
	"fmt"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// hourWindowClient is a client of a simulator of opts whose batch window is an
// hour: only announced operations, never the window, decide when a batch goes.
func hourWindowClient(t *testing.T, opts simulator.Options) (*Client, *simulator.Server) {
	t.Helper()
	opts.AppCode, opts.AppSecret = "code", "secret"
	sim := simulator.New(opts)
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	c, err := New(Config{Endpoint: srv.URL, AppCode: "code", AppSecret: "secret", Username: "admin",
		PollInitial: time.Millisecond, PollMax: 5 * time.Millisecond, BatchWindow: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return c, sim
}

// While an announced operation is on its way, a gathered announced one is not
// sent even when due (and the window is an hour); once it arrives, both go in
// one task.
func TestBatchWaitsForAnnouncedOperations(t *testing.T) {
	t.Parallel()
	c, sim := hourWindowClient(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var reqs [2]OperateRequest
	var ctxs [2]context.Context
	for i := range reqs {
		reqs[i] = OperateRequest{Meta: Meta{Namespace: "gse", Name: fmt.Sprintf("p%d", i)}, Hosts: []Host{{IP: fmt.Sprintf("10.0.0.%d", i+1)}}, Op: OpHost}
		var withdraw func()
		ctxs[i], withdraw = c.Proc.ExpectOperate(ctx)
		defer withdraw()
		if _, err := c.Proc.RegisterProcInfo(ctx, reqs[i].Meta, reqs[i].Hosts, testSpec()); err != nil {
			t.Fatal(err)
		}
		reqs[i].Spec = testSpec()
	}
	var outs [2]*Outcome
	var errs [2]error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		outs[0], errs[0] = c.Proc.Operate(ctxs[0], reqs[0])
	}()
	// Wait (for the goroutine, not for time to pass) until the first is
	// gathered and its batch is due: it must still not be sent.
	for due := false; !due; {
		c.ops.mu.Lock()
		if g := c.ops.open; g != nil && len(g.items) == 1 && g.due {
			due = true
			if c.ops.expected != 1 {
				t.Errorf("%d expected, want 1", c.ops.expected)
			}
		}
		c.ops.mu.Unlock()
		if ctx.Err() != nil {
			t.Fatal("the first operation never became due in its batch")
		}
		time.Sleep(time.Millisecond)
	}
	if n := len(sim.Tasks()); n != 0 {
		t.Fatalf("%d tasks sent while an announced operation was on its way", n)
	}
	outs[1], errs[1] = c.Proc.Operate(ctxs[1], reqs[1])
	wg.Wait()
	for i := range outs {
		if errs[i] != nil || outs[i].TaskID != outs[0].TaskID {
			t.Fatalf("caller %d: %+v %v", i, outs[i], errs[i])
		}
	}
	if tasks := sim.Tasks(); len(tasks) != 1 || tasks[0].API != "operate_proc_multi" || tasks[0].Items != 2 {
		t.Fatalf("tasks %+v, want one operate_proc_multi of 2 items", tasks)
	}
}

// A batch opened by an announced operation whose caller made a call since
// announcing it (a create's register) is due at once; one whose caller made
// none (a destroy) lingers batchLinger for the operations Terraform starts
// with it. A second announced operation holds the batch open meanwhile.
func TestBatchLingersOnlyWithoutACall(t *testing.T) {
	t.Parallel()
	for _, called := range []bool{true, false} {
		t.Run(fmt.Sprintf("called=%v", called), func(t *testing.T) {
			t.Parallel()
			c, _ := hourWindowClient(t, simulator.Options{InstantTasks: true})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			req := OperateRequest{Meta: Meta{Namespace: "gse", Name: "p"}, Hosts: []Host{{IP: "10.0.0.1"}}, Op: OpHost, Spec: testSpec()}
			opCtx, withdraw := c.Proc.ExpectOperate(ctx)
			defer withdraw()
			_, holdBatch := c.Proc.ExpectOperate(ctx)
			regCtx := ctx
			if called {
				regCtx = opCtx
			}
			if _, err := c.Proc.RegisterProcInfo(regCtx, req.Meta, req.Hosts, req.Spec); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := c.Proc.Operate(opCtx, req); done <- err }()
			for gathered := false; !gathered; runtime.Gosched() {
				c.ops.mu.Lock()
				if g := c.ops.open; g != nil && len(g.items) == 1 {
					gathered = true
					ok := g.due && g.dueTimer == nil // due at once
					if !called {
						ok = g.dueTimer != nil // lingering
					}
					if !ok {
						t.Errorf("due %v, lingering %v; want due at once only after a call", g.due, g.dueTimer != nil)
					}
				}
				c.ops.mu.Unlock()
				if ctx.Err() != nil {
					t.Fatal("the operation never reached its batch")
				}
			}
			holdBatch()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

func testSpec() *Spec {
	return &Spec{
		Identity:      Identity{ProcName: "p", SetupPath: "/data/p", PidPath: "/data/p/p.pid", User: "root"},
		Control:       Control{StartCmd: "./start.sh", StopCmd: "./stop.sh"},
		Resource:      &Resource{CPU: 10, Mem: 10},
		MonitorPolicy: &MonitorPolicy{AutoType: 1},
	}
}
