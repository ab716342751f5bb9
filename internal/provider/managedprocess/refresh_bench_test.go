package managedprocess_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// BenchmarkManagedProcessRefresh measures the provider's side of refreshing
// and planning one unchanged gse_managed_process (one host, running = true,
// the spec of bench-e2e), without Terraform core: the RPCs Terraform sends
// per resource on `terraform plan` (UpgradeResourceState, ValidateResourceConfig,
// ReadResource, PlanResourceChange), each also alone. Its allocations per op
// are what the refresh of 1000 resources pays 1000 times.
//
//	go test ./internal/provider/managedprocess/ -run '^$' -bench ManagedProcessRefresh -benchmem
func BenchmarkManagedProcessRefresh(b *testing.B) {
	ctx := context.Background()
	server, schemas, _ := configuredBenchServer(ctx, b)

	const typeName = "gse_managed_process"
	typ := schemas.ResourceSchemas[typeName].ValueType()
	config := acctest.BenchValue(typ, map[string]any{
		"meta":  map[string]any{"namespace": "bench", "name": "p0"},
		"hosts": []any{map[string]any{"ip": "10.0.0.1", "bk_cloud_id": 0}},
		"spec": map[string]any{
			"identity":       map[string]any{"proc_name": "bench", "setup_path": "/data/bench", "pid_path": "/data/bench/bench.pid", "user": "root"},
			"control":        map[string]any{"start_cmd": "./start.sh", "stop_cmd": "./stop.sh", "restart_cmd": "./restart.sh"},
			"resource":       map[string]any{"cpu": 10.0, "mem": 10.0},
			"monitor_policy": map[string]any{"auto_type": 1},
		},
		"running": true,
	})
	null := tftypes.NewValue(typ, nil)
	plan, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: typeName,
		Config: acctest.BenchDynamic(b, config), ProposedNewState: acctest.BenchDynamic(b, config), PriorState: acctest.BenchDynamic(b, null)})
	if err != nil || len(plan.Diagnostics) > 0 {
		b.Fatalf("plan create: %v %v", err, plan.Diagnostics)
	}
	created, err := server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{TypeName: typeName,
		Config: acctest.BenchDynamic(b, config), PlannedState: plan.PlannedState, PlannedPrivate: plan.PlannedPrivate, PriorState: acctest.BenchDynamic(b, null)})
	if err != nil || len(created.Diagnostics) > 0 {
		b.Fatalf("create: %v %v", err, created.Diagnostics)
	}
	state, err := created.NewState.Unmarshal(typ)
	if err != nil {
		b.Fatal(err)
	}
	stateJSON, err := json.Marshal(acctest.BenchJSON(state))
	if err != nil {
		b.Fatal(err)
	}

	upgrade := func() {
		resp, err := server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: typeName, RawState: &tfprotov6.RawState{JSON: stateJSON}})
		if err != nil || len(resp.Diagnostics) > 0 {
			b.Fatalf("upgrade: %v %v", err, resp.Diagnostics)
		}
	}
	validate := func() {
		resp, err := server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: acctest.BenchDynamic(b, config)})
		if err != nil || len(resp.Diagnostics) > 0 {
			b.Fatalf("validate: %v %v", err, resp.Diagnostics)
		}
	}
	read := func() *tfprotov6.ReadResourceResponse {
		resp, err := server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: typeName, CurrentState: created.NewState, Private: created.Private})
		if err != nil || len(resp.Diagnostics) > 0 {
			b.Fatalf("read: %v %v", err, resp.Diagnostics)
		}
		return resp
	}
	refreshed := read()
	planNoop := func() {
		resp, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: typeName, Config: acctest.BenchDynamic(b, config),
			ProposedNewState: refreshed.NewState, PriorState: refreshed.NewState, PriorPrivate: refreshed.Private})
		if err != nil || len(resp.Diagnostics) > 0 || len(resp.RequiresReplace) > 0 {
			b.Fatalf("plan: %v %v", err, resp.Diagnostics)
		}
	}
	for _, step := range []struct {
		name string
		run  func()
	}{
		{"upgrade", upgrade}, {"validate", validate}, {"read", func() { read() }}, {"plan", planNoop},
		{"all", func() { upgrade(); validate(); read(); planNoop() }},
	} {
		b.Run(step.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				step.run()
			}
		})
	}
}

// configuredBenchServer is the provider's server, configured for an
// in-process simulator, its schemas and the simulator.
func configuredBenchServer(ctx context.Context, b *testing.B) (tfprotov6.ProviderServer, *tfprotov6.GetProviderSchemaResponse, *simulator.Server) {
	sim := simulator.New(simulator.Options{AppCode: acctest.AppCode, AppSecret: acctest.AppSecret})
	srv := httptest.NewServer(sim)
	b.Cleanup(srv.Close)
	server, err := packed.NewProtocol6(provider.NewTuned("bench", func(c *gse.Config) {
		c.PollInitial, c.PollMax = time.Millisecond, 10*time.Millisecond
		c.RateLimit = 1e6 // the adaptive limiter's slow start is not what this measures
	})())()
	if err != nil {
		b.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		b.Fatal(err)
	}
	providerType := schemas.Provider.ValueType()
	cfg := acctest.BenchValue(providerType, map[string]any{"endpoint": srv.URL, "app_code": acctest.AppCode, "app_secret": acctest.AppSecret, "username": "admin"})
	if resp, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: acctest.BenchDynamic(b, cfg)}); err != nil || len(resp.Diagnostics) > 0 {
		b.Fatalf("configure: %v %v", err, resp.Diagnostics)
	}
	return server, schemas, sim
}
