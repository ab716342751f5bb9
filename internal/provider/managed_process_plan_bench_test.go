package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// BenchmarkManagedProcessPlan measures the provider's side of planning one
// gse_managed_process with n hosts (validate + plan of a create), without
// Terraform core or the wire. Run it with
// `go test ./internal/provider/ -run '^$' -bench ManagedProcessPlan -benchtime 3x`.
func BenchmarkManagedProcessPlan(b *testing.B) {
	ctx := context.Background()
	server, err := providerserver.NewProtocol6WithError(New("bench")())()
	if err != nil {
		b.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		b.Fatal(err)
	}
	typ, ok := schemas.ResourceSchemas["gse_managed_process"].ValueType().(tftypes.Object)
	if !ok {
		b.Fatal("no object type")
	}
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

// benchManagedProcess is a configuration of n hosts written as the bench-e2e
// configuration writes them (ip and bk_cloud_id; the other host attributes null).
func benchManagedProcess(typ tftypes.Object, n int) tftypes.Value {
	null := func(t tftypes.Type) tftypes.Value { return tftypes.NewValue(t, nil) }
	obj := func(t tftypes.Type, set map[string]tftypes.Value) tftypes.Value {
		ot := t.(tftypes.Object)
		vals := map[string]tftypes.Value{}
		for name, at := range ot.AttributeTypes {
			if v, ok := set[name]; ok {
				vals[name] = v
			} else {
				vals[name] = null(at)
			}
		}
		return tftypes.NewValue(t, vals)
	}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	num := func(x float64) tftypes.Value { return tftypes.NewValue(tftypes.Number, x) }
	hostsType := typ.AttributeTypes["hosts"].(tftypes.List)
	hosts := make([]tftypes.Value, n)
	for i := range hosts {
		hosts[i] = obj(hostsType.ElementType, map[string]tftypes.Value{
			"ip": str(fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)), "bk_cloud_id": num(0)})
	}
	specType := typ.AttributeTypes["spec"].(tftypes.Object)
	spec := obj(specType, map[string]tftypes.Value{
		"identity": obj(specType.AttributeTypes["identity"], map[string]tftypes.Value{"proc_name": str("bench"), "setup_path": str("/data/bench"),
			"pid_path": str("/data/bench/bench.pid"), "user": str("root")}),
		"control":        obj(specType.AttributeTypes["control"], map[string]tftypes.Value{"start_cmd": str("./start.sh")}),
		"resource":       obj(specType.AttributeTypes["resource"], map[string]tftypes.Value{"cpu": num(10), "mem": num(10)}),
		"monitor_policy": obj(specType.AttributeTypes["monitor_policy"], map[string]tftypes.Value{"auto_type": num(1)}),
	})
	metaType := typ.AttributeTypes["meta"].(tftypes.Object)
	return obj(typ, map[string]tftypes.Value{
		"meta":  obj(metaType, map[string]tftypes.Value{"namespace": str("bench"), "name": str("p0")}),
		"hosts": tftypes.NewValue(hostsType, hosts), "spec": spec,
	})
}
