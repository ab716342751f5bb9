package gse_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

func manyHosts(n int) []gse.Host {
	hosts := make([]gse.Host, n)
	for i := range hosts {
		hosts[i] = gse.Host{IP: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)}
	}
	return hosts
}

// A status read of 2000 hosts: two chunked calls, as a refresh of a large fleet makes.
func BenchmarkGetProcStatusV2_2000Hosts(b *testing.B) {
	c, _, _ := newClient(b, simulator.Options{})
	hosts := manyHosts(2000)
	ctx := ctxTimeout(b, time.Minute)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, hosts, spec); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		st, err := c.Proc.GetProcStatusV2(ctx, meta, hosts)
		if err != nil || len(st) != len(hosts) {
			b.Fatal(len(st), err)
		}
	}
}

// One operation on 500 hosts: submit, then polls through 1000115 and 115 to the result map.
func BenchmarkOperate_500Hosts(b *testing.B) {
	c, _, _ := newClient(b, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 1, Pending: 2}})
	hosts := manyHosts(500)
	ctx := ctxTimeout(b, time.Minute)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, hosts, spec); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: hosts, Op: gse.OpRestart, Spec: spec}); err != nil {
			b.Fatal(err)
		}
	}
}
