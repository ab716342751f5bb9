package gse_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// A window long enough that callers started together always share a batch,
// even on a loaded machine; the default is measured in TestBatchWindowMeasured.
func batched(c *gse.Config) { c.BatchWindow = 200 * time.Millisecond }

// caller is one resource's process on its own host.
type caller struct {
	meta gse.Meta
	host gse.Host
}

func callers(n int) []caller {
	out := make([]caller, n)
	for i := range out {
		out[i] = caller{gse.Meta{Namespace: "gse", Name: fmt.Sprintf("proc-%d", i)}, gse.Host{IP: fmt.Sprintf("10.1.0.%d", i+1)}}
	}
	return out
}

type result struct {
	out *gse.Outcome
	err error
}

// operateAll registers each caller's process, then runs op for all of them at
// once, as Terraform applies resources in parallel; ctxs[i] (when set) is caller i's context.
func operateAll(t *testing.T, c *gse.Client, cs []caller, op gse.OpType, sp func(i int) *gse.Spec, ctxs map[int]context.Context) []result {
	t.Helper()
	ctx := ctxTimeout(t, 10*time.Second)
	for _, x := range cs {
		if _, err := c.Proc.RegisterProcInfo(ctx, x.meta, []gse.Host{x.host}, spec); err != nil {
			t.Fatal(err)
		}
	}
	res := make([]result, len(cs))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, x := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx := ctx
			if ctxs[i] != nil {
				cctx = ctxs[i]
			}
			<-start
			res[i].out, res[i].err = c.Proc.Operate(cctx, gse.OperateRequest{Meta: x.meta, Hosts: []gse.Host{x.host}, Op: op, Spec: sp(i)})
		}()
	}
	close(start)
	wg.Wait()
	return res
}

func sameSpec(int) *gse.Spec { return spec }

func TestBatchCoalescesConcurrentOperations(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}}, batched)
	cs := callers(10)
	res := operateAll(t, c, cs, gse.OpHost, sameSpec, nil)
	for i, r := range res {
		if r.err != nil || len(r.out.Hosts) != 1 || r.out.Hosts[0].Host != cs[i].host || r.out.Hosts[0].Meta.Name != cs[i].meta.Name {
			t.Fatalf("caller %d: %+v %v", i, r.out, r.err)
		}
	}
	tasks := sim.Tasks()
	if len(tasks) != 1 || tasks[0].API != "operate_proc_multi" || tasks[0].Items != 10 || tasks[0].Hosts != 10 {
		t.Fatalf("tasks %+v, want one operate_proc_multi of 10 items", tasks)
	}
	// One poller for the task: 1000115, an empty map, 115, then the results.
	if n := sim.Calls("get_proc_operate_result_v2"); n != 3 {
		t.Fatalf("%d polls, want 3 (one poller)", n)
	}
	for _, x := range cs {
		if p, ok := sim.GSE().Process(x.meta.Namespace, x.meta.Name, 0, x.host.IP); !ok || !p.Hosted {
			t.Fatalf("%s not hosted: %+v", x.meta, p)
		}
	}
}

func TestBatchHostFailureStaysWithItsCaller(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}}, batched)
	cs := callers(4)
	sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: cs[2].host.IP, Code: gse.HostAgentAbnormal, Message: "agent offline", Times: simulator.Forever})
	res := operateAll(t, c, cs, gse.OpStart, sameSpec, nil)
	for i, r := range res {
		var he *gse.HostsError
		switch {
		case i == 2 && (!errors.As(r.err, &he) || len(he.Failures) != 1 || he.Failures[0].Host != cs[2].host || he.Total != 1 || he.API != "operate_proc_multi"):
			t.Fatalf("caller 2: %v", r.err)
		case i != 2 && r.err != nil:
			t.Fatalf("caller %d failed with another's host: %v", i, r.err)
		}
	}
	if n := len(sim.Tasks()); n != 1 {
		t.Fatalf("%d tasks, want 1", n)
	}
}

// A multi task refused for one bad item is sent again item by item, so only that item fails.
func TestBatchRefusedMultiFallsBackToSingleItems(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}}, batched)
	cs := callers(3)
	bad := *spec
	bad.Identity.User = "" // the simulator refuses the request as a whole (1306406)
	res := operateAll(t, c, cs, gse.OpStart, func(i int) *gse.Spec {
		if i == 1 {
			return &bad
		}
		return spec
	}, nil)
	for i, r := range res {
		switch {
		case i == 1 && gse.KindOf(r.err) != gse.KindParams:
			t.Fatalf("caller 1: %v, want a parameter refusal", r.err)
		case i != 1 && r.err != nil:
			t.Fatalf("caller %d: %v", i, r.err)
		}
	}
	if m, v2 := sim.Calls("operate_proc_multi"), sim.Calls("operate_proc_v2"); m != 1 || v2 != 3 {
		t.Fatalf("operate_proc_multi %d, operate_proc_v2 %d; want 1 and 3", m, v2)
	}
}

// An ambiguous failure of the multi submit is reported to every caller, never re-sent.
func TestBatchSubmitNotResentAfterAmbiguousFailure(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{}, batched)
	sim.AddFault(simulator.Fault{API: "operate_proc_multi", HTTPStatus: http.StatusBadGateway, Acted: true})
	res := operateAll(t, c, callers(2), gse.OpStart, sameSpec, nil)
	for i, r := range res {
		if gse.KindOf(r.err) != gse.KindServer {
			t.Fatalf("caller %d: %v", i, r.err)
		}
	}
	if m, v2 := sim.Calls("operate_proc_multi"), sim.Calls("operate_proc_v2"); m != 1 || v2 != 0 {
		t.Fatalf("operate_proc_multi %d, operate_proc_v2 %d; want 1 and 0", m, v2)
	}
}

// A caller whose deadline passes returns its own pending host; the others go on.
func TestBatchCallerDeadlineIsItsOwn(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 3}}, batched)
	cs := callers(3)
	sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: cs[0].host.IP, Missing: true, Times: simulator.Forever})
	short, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res := operateAll(t, c, cs, gse.OpStart, sameSpec, map[int]context.Context{0: short})
	var he *gse.HostsError
	if !errors.As(res[0].err, &he) || len(he.Pending) != 1 || he.Pending[0] != cs[0].host || !he.DeadlinePassed() || he.TaskID == "" {
		t.Fatalf("caller 0: %v", res[0].err)
	}
	for i, r := range res[1:] {
		if r.err != nil || len(r.out.Hosts) != 1 {
			t.Fatalf("caller %d: %+v %v", i+1, r.out, r.err)
		}
	}
	if tasks := sim.Tasks(); len(tasks) != 1 || tasks[0].Items != 3 {
		t.Fatalf("tasks %+v", tasks)
	}
}

// More than 1000 hosts become items of at most 1000 hosts, in one task.
func TestBatchSplitsLargeRequests(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}})
	ctx := ctxTimeout(t, 20*time.Second)
	hosts := manyHosts(2500)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, hosts, spec); err != nil {
		t.Fatal(err)
	}
	out, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpHost, Spec: spec})
	if err != nil || len(out.Hosts) != 2500 {
		t.Fatalf("%d hosts, %v", len(out.Hosts), err)
	}
	if tasks := sim.Tasks(); len(tasks) != 1 || tasks[0].API != "operate_proc_multi" || tasks[0].Items != 3 || tasks[0].Hosts != 2500 {
		t.Fatalf("tasks %+v, want one task of 3 items", tasks)
	}
}

// A request of more than 1000 hosts whose deadline passes while it waits in
// the window names every host as not acted on: no item of it was sent.
func TestBatchSplitRequestNotSentBeforeDeadline(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{}, func(c *gse.Config) { c.BatchWindow = time.Minute })
	hosts := manyHosts(1500)
	if _, err := c.Proc.RegisterProcInfo(ctxTimeout(t, 20*time.Second), meta, hosts, spec); err != nil {
		t.Fatal(err)
	}
	_, err := c.Proc.Operate(ctxTimeout(t, 100*time.Millisecond), gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpHost, Spec: spec})
	var he *gse.HostsError
	if !errors.As(err, &he) || len(he.NotActed) != 1500 || len(he.Pending) != 0 || !he.DeadlinePassed() {
		t.Fatalf("err = %v, want all 1500 hosts not acted on", err)
	}
	if tasks := sim.Tasks(); len(tasks) != 0 {
		t.Fatalf("tasks %+v, want none", tasks)
	}
}

// Two operations on one process on one host cannot share a task: its result
// map has one key per process and host.
func TestBatchKeepsSameKeyApart(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}}, batched)
	ctx := ctxTimeout(t, 10*time.Second)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1}, spec); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, op := range []gse.OpType{gse.OpHost, gse.OpRestart} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: op, Spec: spec}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if tasks := sim.Tasks(); len(tasks) != 2 || tasks[0].API != "operate_proc_v2" || tasks[1].API != "operate_proc_v2" {
		t.Fatalf("tasks %+v, want two single tasks", tasks)
	}
}

// With batching off every call is its own operate_proc_v2 task.
func TestBatchOff(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}}, func(c *gse.Config) { c.BatchWindow = -1 })
	operateAll(t, c, callers(3), gse.OpStart, sameSpec, nil)
	if m, v2 := sim.Calls("operate_proc_multi"), sim.Calls("operate_proc_v2"); m != 0 || v2 != 3 {
		t.Fatalf("operate_proc_multi %d, operate_proc_v2 %d", m, v2)
	}
}

// A window no test waits out: an announced operation that completes was sent
// without waiting for it.
func endless(c *gse.Config) { c.BatchWindow = time.Hour }

// An announced operation with none other on its way is sent at once, not
// after the window.
func TestBatchAnnouncedOperationSentAtOnce(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}}, endless)
	ctx, withdraw := c.Proc.ExpectOperate(ctxTimeout(t, 30*time.Second))
	defer withdraw()
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1}, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: gse.OpHost, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	if tasks := sim.Tasks(); len(tasks) != 1 || tasks[0].API != "operate_proc_v2" {
		t.Fatalf("tasks %+v, want one operate_proc_v2", tasks)
	}
}

// An announcement withdrawn without an operation (a create that failed to
// register) no longer holds the batch back.
func TestBatchWithdrawnAnnouncementReleasesBatch(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientWith(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 1}}, endless)
	ctx := ctxTimeout(t, 30*time.Second)
	mine, withdrawMine := c.Proc.ExpectOperate(ctx)
	defer withdrawMine()
	_, withdrawOther := c.Proc.ExpectOperate(ctx)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1}, spec); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Proc.Operate(mine, gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: gse.OpHost, Spec: spec})
		done <- err
	}()
	withdrawOther()
	withdrawOther() // twice is harmless
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if tasks := sim.Tasks(); len(tasks) != 1 || tasks[0].API != "operate_proc_v2" {
		t.Fatalf("tasks %+v, want one operate_proc_v2", tasks)
	}
}

// Without operate_proc_multi, batched operations are sent one by one with
// operate_proc_v2: the first batch after one refusal, every later one at once,
// and the log says so once.
func TestWithoutOperateProcMulti(t *testing.T) {
	t.Parallel()
	c, sim, log := newClientWith(t, simulator.Options{}, batched)
	sim.RemoveAPIs("operate_proc_multi")
	all := callers(5)
	for round, cs := range [][]caller{all[:3], all[3:]} {
		for i, r := range operateAll(t, c, cs, gse.OpStart, sameSpec, nil) {
			if r.err != nil {
				t.Fatalf("round %d, caller %d: %v", round, i, r.err)
			}
		}
	}
	if n := sim.Calls("operate_proc_multi"); n != 1 {
		t.Errorf("operate_proc_multi sent %d times, want once", n)
	}
	if n := sim.Calls("operate_proc_v2"); n != 5 {
		t.Errorf("operate_proc_v2 sent %d times, want 3 + 2", n)
	}
	warned := 0
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, l := range log.lines {
		if strings.Contains(l, "GSE has no operate_proc_multi") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("the fallback was logged %d times, want once", warned)
	}
	for _, p := range sim.GSE().Processes() {
		if !p.Running {
			t.Errorf("%s/%s on %s is not running", p.Namespace, p.Name, p.IP)
		}
	}
}
