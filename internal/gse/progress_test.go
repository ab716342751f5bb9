package gse_test

import (
	"sync"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// Every host of an operation is reported once through WithProgress, with its
// outcome, failures included, on the batched (operate_proc_v2) and the v1 path.
func TestProgressReportsEveryHost(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	ctx := ctxTimeout(t, 5*time.Second)
	hosts := []gse.Host{host1, host2}
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, hosts, spec); err != nil {
		t.Fatal(err)
	}
	for _, api := range []string{"operate_proc_v2", "operate_proc"} {
		var mu sync.Mutex
		seen := map[gse.Host]gse.HostOutcome{}
		calls := 0
		pctx := gse.WithProgress(ctx, func(o gse.HostOutcome) {
			mu.Lock()
			defer mu.Unlock()
			calls++
			seen[o.Host] = o
		})
		sim.AddHostFault(simulator.HostFault{API: api, IP: host2.IP, Code: gse.HostAgentAbnormal, Message: "agent offline", Times: 1})
		req := gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpRestart, Spec: spec}
		var err error
		if api == "operate_proc" {
			_, err = c.Proc.OperateV1(pctx, req)
		} else {
			_, err = c.Proc.Operate(pctx, req)
		}
		if err == nil {
			t.Fatalf("%s: the failure of %s was not returned", api, host2)
		}
		ok, failed := seen[host1], seen[host2]
		if calls != 2 || !ok.OK() || ok.Meta.Name != meta.Name || ok.Op != gse.OpRestart || failed.ErrorCode != gse.HostAgentAbnormal {
			t.Fatalf("%s: %d reports %+v, want host1 ok and host2 at 117, once each", api, calls, seen)
		}
	}
}
