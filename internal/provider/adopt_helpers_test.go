package provider_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// register puts a process on hosts ("cloud:ip", or "agent:{agent_id}" through the gateway) behind Terraform's back, as
// an operator did before adopting Terraform, and runs op there (hosting,
// start) when op is not nil. Through the gateway, which has no register, an
// operation with the spec creates it: op, or hosting undone at once.
func (e *testEnv) register(t *testing.T, meta gse.Meta, hosts []string, op *gse.OpType) {
	t.Helper()
	c := e.client(t)
	spec := &gse.Spec{
		Identity:      gse.Identity{ProcName: meta.Name, SetupPath: "/opt/" + meta.Name, PidPath: "/opt/" + meta.Name + "/p.pid", User: "root"},
		Control:       gse.Control{StartCmd: "./start.sh", StopCmd: "./stop.sh", RestartCmd: "./restart.sh"},
		Resource:      &gse.Resource{CPU: 5, Mem: 5},
		MonitorPolicy: &gse.MonitorPolicy{AutoType: 1},
	}
	var hs []gse.Host
	for _, h := range hosts {
		if id, ok := strings.CutPrefix(h, "agent:"); ok {
			hs = append(hs, gse.Host{AgentID: id})
			continue
		}
		var cloud int64
		var ip string
		if _, err := fmt.Sscanf(h, "%d:%s", &cloud, &ip); err != nil {
			t.Fatalf("host %q: %v", h, err)
		}
		hs = append(hs, gse.Host{IP: ip, BkCloudID: cloud})
	}
	ctx := context.Background()
	ops := []gse.OpType{}
	switch {
	case !e.gateway:
		if _, err := c.Proc.RegisterProcInfo(ctx, meta, hs, spec); err != nil {
			t.Fatal(err)
		}
	case op == nil:
		ops = append(ops, gse.OpHost, gse.OpUnhost)
	}
	if op != nil {
		ops = append(ops, *op)
	}
	for _, o := range ops {
		if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: hs, Op: o, Spec: spec}); err != nil {
			t.Fatal(err)
		}
	}
}

func opPtr(op gse.OpType) *gse.OpType { return &op }

// checkOnlyLeft is a CheckDestroy for tests that register processes outside
// Terraform: only processes of these namespace/name may remain.
func (e *testEnv) checkOnlyLeft(names ...string) func(*terraform.State) error {
	return func(*terraform.State) error {
		for _, p := range e.sim.Processes() {
			if n := p.Namespace + "/" + p.Name; !slices.Contains(names, n) && !e.gone(p) {
				return fmt.Errorf("process %s left in GSE after destroy on %s", n, p.IP)
			}
		}
		return nil
	}
}
