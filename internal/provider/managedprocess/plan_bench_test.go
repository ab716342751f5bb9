package managedprocess_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// BenchmarkManagedProcessPlan measures the provider's side of planning one
// gse_managed_process with n hosts (validate + plan of a create), without
// Terraform core or the wire. Run it with
// `go test ./internal/provider/managedprocess/ -run '^$' -bench ManagedProcessPlan -benchtime 3x`.
func BenchmarkManagedProcessPlan(b *testing.B) {
	ctx := context.Background()
	server, typ := acctest.BenchServer(ctx, b, "gse_managed_process")
	for _, n := range []int{1000, 10000} {
		config := benchManagedProcess(typ, n)
		dv, err := tfprotov6.NewDynamicValue(typ, config)
		if err != nil {
			b.Fatal(err)
		}
		null, _ := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
		b.Run(fmt.Sprintf("create/hosts=%d", n), func(b *testing.B) {
			for b.Loop() {
				vr, err := server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "gse_managed_process", Config: &dv})
				if err != nil || len(vr.Diagnostics) > 0 {
					b.Fatalf("validate: %v %v", err, vr.Diagnostics)
				}
				pr, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "gse_managed_process",
					Config: &dv, ProposedNewState: &dv, PriorState: &null})
				if err != nil || len(pr.Diagnostics) > 0 {
					b.Fatalf("plan: %v %v", err, pr.Diagnostics)
				}
			}
		})
	}
}

// BenchmarkManagedProcessApply measures the provider's side of creating one
// gse_managed_process with n hosts (plan and apply) against an in-process
// simulator: the client's calls and the framework's handling of the values.
// Run it with
// `go test ./internal/provider/managedprocess/ -run '^$' -bench ManagedProcessApply -benchtime 3x`.
func BenchmarkManagedProcessApply(b *testing.B) {
	ctx := context.Background()
	server, schemas, sim := configuredBenchServer(ctx, b)
	typ, _ := schemas.ResourceSchemas["gse_managed_process"].ValueType().(tftypes.Object)
	null := acctest.BenchDynamic(b, tftypes.NewValue(typ, nil))
	for _, n := range []int{1000, 10000} {
		config := benchManagedProcess(typ, n)
		b.Run(fmt.Sprintf("create/hosts=%d", n), func(b *testing.B) {
			before := sim.AllCalls()
			i := 0
			for ; b.Loop(); i++ {
				// A new process each time: the simulator keeps the last one.
				attrs := map[string]tftypes.Value{}
				_ = config.As(&attrs)
				attrs["meta"] = acctest.BenchValue(typ.AttributeTypes["meta"], map[string]any{"namespace": "bench", "name": fmt.Sprintf("p%d-%d", n, i)})
				dv := acctest.BenchDynamic(b, tftypes.NewValue(typ, attrs))
				pr, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "gse_managed_process",
					Config: dv, ProposedNewState: dv, PriorState: null})
				if err != nil || len(pr.Diagnostics) > 0 {
					b.Fatalf("plan: %v %v", err, pr.Diagnostics)
				}
				ar, err := server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{TypeName: "gse_managed_process",
					Config: dv, PlannedState: pr.PlannedState, PlannedPrivate: pr.PlannedPrivate, PriorState: null})
				if err != nil || len(ar.Diagnostics) > 0 {
					b.Fatalf("apply: %v %s: %s", err, ar.Diagnostics[0].Summary, ar.Diagnostics[0].Detail)
				}
			}
			for api, n := range sim.AllCalls() {
				b.ReportMetric(float64(n-before[api])/float64(i), api+"/op")
			}
		})
	}
}

// benchManagedProcess is a configuration of n hosts written as the bench-e2e
// configuration writes them (ip and bk_cloud_id; the other host attributes null).
func benchManagedProcess(typ tftypes.Object, n int) tftypes.Value {
	hosts := make([]any, n)
	for i := range hosts {
		hosts[i] = map[string]any{"ip": fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), "bk_cloud_id": 0}
	}
	return acctest.BenchValue(typ, map[string]any{
		"meta":  map[string]any{"namespace": "bench", "name": "p0"},
		"hosts": hosts,
		"spec": map[string]any{
			"identity":       map[string]any{"proc_name": "bench", "setup_path": "/data/bench", "pid_path": "/data/bench/bench.pid", "user": "root"},
			"control":        map[string]any{"start_cmd": "./start.sh"},
			"resource":       map[string]any{"cpu": 10.0, "mem": 10.0},
			"monitor_policy": map[string]any{"auto_type": 1},
		},
	})
}
