package gse_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// The default schedule at a tenth of its scale (first poll after 10 ms) against
// a task lasting a tenth of 2 s: the create's requests stay within issue 6's
// budget. A slow machine can only delay polls, so it can only lower the count.
func TestCreateRequestsAtTaskLatency(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{TaskLatency: 200 * time.Millisecond}, func(c *gse.Config) {
		c.PollInitial, c.PollMax, c.BatchWindow = 10*time.Millisecond, 500*time.Millisecond, 0
	})
	ctx := ctxTimeout(t, 10*time.Second)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1}, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: gse.OpStart, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range sim.AllCalls() {
		total += n
	}
	if polls := sim.Calls("get_proc_operate_result_v2"); polls > 3 || total > 5 {
		t.Fatalf("%d polls, %d requests; want ≤ 3 polls and ≤ 5 requests (register, submit, polls)", polls, total)
	}
	t.Logf("create at L = 2s (scaled 1/10): %d requests: %v", total, sim.AllCalls())
}

// Against tasks that finish at once, a create (register, start) and a destroy
// (stop, unregister) each cost three requests, one poll per task, and destroy
// no more than create: the first poll's wait adapts, never adding a poll.
func TestInstantTasksCostOnePollEach(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{InstantTasks: true}, func(c *gse.Config) {
		c.PollInitial, c.PollMax, c.BatchWindow = 20*time.Millisecond, 100*time.Millisecond, -1
	})
	ctx := ctxTimeout(t, 10*time.Second)
	total := func() (n int) {
		for _, c := range sim.AllCalls() {
			n += c
		}
		return n
	}
	for i := range 6 {
		m := gse.Meta{Namespace: "gse", Name: fmt.Sprintf("p%d", i)}
		before := total()
		if _, err := c.Proc.RegisterProcInfo(ctx, m, []gse.Host{host1}, spec); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: m, Hosts: []gse.Host{host1}, Op: gse.OpStart, Spec: spec}); err != nil {
			t.Fatal(err)
		}
		created := total() - before
		if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: m, Hosts: []gse.Host{host1}, Op: gse.OpStop, Spec: spec}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Proc.UnregisterProcInfo(ctx, m, []gse.Host{host1}); err != nil {
			t.Fatal(err)
		}
		if destroyed := total() - before - created; created != 3 || destroyed != 3 {
			t.Fatalf("process %d: create %d requests, destroy %d; want 3 and 3: %v", i, created, destroyed, sim.AllCalls())
		}
	}
}
