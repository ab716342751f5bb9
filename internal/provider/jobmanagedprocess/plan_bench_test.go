package jobmanagedprocess_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// BenchmarkJobManagedProcessPlan measures the provider's side of planning one
// gse_job_managed_process with n IPs (validate + plan), without Terraform
// core: a create, and a plan against a prior state whose ip_list is reordered.
// Run it with `go test ./internal/provider/jobmanagedprocess/ -run '^$' -bench JobManagedProcessPlan -benchtime 3x`.
func BenchmarkJobManagedProcessPlan(b *testing.B) {
	ctx := context.Background()
	server, typ := acctest.BenchServer(ctx, b, "gse_job_managed_process")
	for _, n := range []int{100, 1000, 5000} {
		ips := make([]tftypes.Value, n)
		for i := range ips {
			ips[i] = tftypes.NewValue(jobIPElemType(typ), map[string]tftypes.Value{
				"bk_cloud_id": tftypes.NewValue(tftypes.Number, i%3), "ip": tftypes.NewValue(tftypes.String, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)),
			})
		}
		reversed := make([]tftypes.Value, n)
		for i := range ips {
			reversed[n-1-i] = ips[i]
		}
		config := jobBenchObject(b, typ, ips, false)
		prior := jobBenchObject(b, typ, ips, true)
		reorderedProposed := jobBenchObject(b, typ, reversed, true)
		b.Run(fmt.Sprintf("create/ips=%d", n), func(b *testing.B) {
			for b.Loop() {
				jobBenchPlan(ctx, b, server, config, config, nil)
			}
		})
		b.Run(fmt.Sprintf("reordered/ips=%d", n), func(b *testing.B) {
			for b.Loop() {
				jobBenchPlan(ctx, b, server, jobBenchObject(b, typ, reversed, false), reorderedProposed, prior)
			}
		})
	}
}

func jobIPElemType(typ tftypes.Object) tftypes.Type {
	switch t := typ.AttributeTypes["ip_list"].(type) {
	case tftypes.List:
		return t.ElementType
	case tftypes.Set:
		return t.ElementType
	}
	panic("ip_list is neither a list nor a set")
}

// jobBenchObject is the resource with every required argument; withComputed
// adds what an apply would have stored (id, type, ip_status).
func jobBenchObject(b *testing.B, typ tftypes.Object, ips []tftypes.Value, withComputed bool) *tftypes.Value {
	vals := map[string]tftypes.Value{}
	for name, t := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(t, nil)
	}
	for name, v := range map[string]string{"bk_scope_type": "biz", "bk_scope_id": "2", "proc_name": "nginx", "contact": "ops",
		"setup_path": "/data/nginx/bin", "pid_path": "/data/nginx/run/nginx.pid", "start_cmd": "./nginx"} {
		vals[name] = tftypes.NewValue(tftypes.String, v)
	}
	vals["type"] = tftypes.NewValue(tftypes.Number, 1)
	listType := typ.AttributeTypes["ip_list"]
	vals["ip_list"] = tftypes.NewValue(listType, ips)
	if withComputed {
		vals["id"] = tftypes.NewValue(tftypes.String, "biz:2//data/nginx/bin/nginx")
		statusType, ok := typ.AttributeTypes["ip_status"].(tftypes.Map)
		if !ok {
			b.Fatalf("ip_status is a %s, not a map", typ.AttributeTypes["ip_status"])
		}
		elemType, ok := statusType.ElementType.(tftypes.Object)
		if !ok {
			b.Fatalf("ip_status elements are %s, not objects", statusType.ElementType)
		}
		st := map[string]tftypes.Value{}
		for _, ip := range ips {
			var attrs map[string]tftypes.Value
			_ = ip.As(&attrs)
			var addr string
			_ = attrs["ip"].As(&addr)
			el := map[string]tftypes.Value{}
			for name, t := range elemType.AttributeTypes {
				el[name] = tftypes.NewValue(t, nil)
			}
			el["status"] = tftypes.NewValue(tftypes.String, "running")
			st[addr] = tftypes.NewValue(statusType.ElementType, el)
		}
		vals["ip_status"] = tftypes.NewValue(statusType, st)
	}
	v := tftypes.NewValue(typ, vals)
	return &v
}

func jobBenchPlan(ctx context.Context, b *testing.B, server tfprotov6.ProviderServer, config, proposed, prior *tftypes.Value) {
	typ := config.Type()
	dv := func(v *tftypes.Value) *tfprotov6.DynamicValue {
		if v == nil {
			nv := tftypes.NewValue(typ, nil)
			v = &nv
		}
		d, err := tfprotov6.NewDynamicValue(typ, *v)
		if err != nil {
			b.Fatal(err)
		}
		return &d
	}
	vr, err := server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "gse_job_managed_process", Config: dv(config)})
	if err != nil || len(vr.Diagnostics) > 0 {
		b.Fatalf("validate: %v %v", err, vr.Diagnostics)
	}
	pr, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "gse_job_managed_process",
		Config: dv(config), ProposedNewState: dv(proposed), PriorState: dv(prior)})
	if err != nil || len(pr.Diagnostics) > 0 {
		b.Fatalf("plan: %v %v", err, pr.Diagnostics)
	}
}
