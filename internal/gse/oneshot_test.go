package gse_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// A one-shot process (auto_type 2) runs and exits: the simulator answers its
// start and restart with 836, which counts as done for exactly that case; 836
// on any other operation, or on a resident process, is still a failure.
func TestOneShotPostCheckIsDone(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	ctx := ctxTimeout(t, 5*time.Second)
	oneShot := *spec
	oneShot.MonitorPolicy = &gse.MonitorPolicy{AutoType: gse.AutoTypeOneShot}
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, []gse.Host{host1}, &oneShot); err != nil {
		t.Fatal(err)
	}
	for _, op := range []gse.OpType{gse.OpStart, gse.OpRestart} {
		out, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: op, Spec: &oneShot})
		if err != nil || len(out.Hosts) != 1 || out.Hosts[0].ErrorCode != gse.HostPostCheck || !out.Hosts[0].OK() {
			t.Fatalf("%s of a one-shot: %+v, %v; want 836, counted as done", op, out, err)
		}
	}
	if p, _ := sim.GSE().Process(meta.Namespace, meta.Name, 0, host1.IP); p.Running || !p.Hosted || p.LastStartTime == 0 || p.Restarts != 1 {
		t.Fatalf("the one-shot did not run and exit: %+v", p)
	}

	for name, tc := range map[string]struct {
		op   gse.OpType
		spec *gse.Spec
	}{
		"stop of a one-shot":    {gse.OpStop, &oneShot},
		"reload of a one-shot":  {gse.OpReload, &oneShot},
		"start of a resident":   {gse.OpStart, spec},
		"restart of a resident": {gse.OpRestart, spec},
		"start, spec unknown":   {gse.OpStart, nil}, // operate_proc acts on the registered spec
	} {
		req := gse.OperateRequest{Meta: meta, Hosts: []gse.Host{host1}, Op: tc.op, Spec: tc.spec}
		api, op := "operate_proc_v2", c.Proc.Operate
		if tc.spec == nil {
			api, op = "operate_proc", c.Proc.OperateV1
		}
		sim.AddHostFault(simulator.HostFault{API: api, IP: host1.IP, Code: gse.HostPostCheck, Message: "post check failed", Times: 1})
		if _, err := op(ctx, req); err == nil || !strings.Contains(err.Error(), "GSE code 836") {
			t.Errorf("%s answered 836: err = %v, want a failure", name, err)
		}
		sim.ClearFaults()
	}
}
