package packed

import (
	"context"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// GenerateResourceConfig (terraform query and import with
// -generate-config-out, Terraform 1.14+) is announced, and through the server
// a packed attribute of the state comes back in the generated configuration
// as Terraform sent it; the resource's ConfigGenerator is asked with the
// value as Terraform sees it; read-only attributes are left out (the
// framework's part).
func TestGenerateResourceConfigUnpacks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newTestServer(t)
	meta, err := s.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{})
	if err != nil || meta.ServerCapabilities == nil || !meta.ServerCapabilities.GenerateResourceConfig {
		t.Fatalf("GenerateResourceConfig not announced: %v %+v", err, meta)
	}
	typ, state := thingFixture(t)
	attrs := map[string]tftypes.Value{}
	if err := state.As(&attrs); err != nil {
		t.Fatal(err)
	}
	itemsType, _ := typ.AttributeTypes["items"].(tftypes.List)
	itemType, _ := itemsType.ElementType.(tftypes.Object)
	attrs["items"] = tftypes.NewValue(itemsType, []tftypes.Value{tftypes.NewValue(itemType, map[string]tftypes.Value{
		"name": tftypes.NewValue(tftypes.String, "a"), "n": tftypes.NewValue(tftypes.Number, big.NewFloat(1<<40)),
	})})
	attrs["id"] = tftypes.NewValue(tftypes.String, "t1")
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.GenerateResourceConfig(ctx, &tfprotov6.GenerateResourceConfigRequest{TypeName: "test_thing", State: &dv})
	if err != nil || len(resp.Diagnostics) > 0 || resp.Config == nil {
		t.Fatalf("GenerateResourceConfig: %v %v", err, resp)
	}
	got, err := resp.Config.Unmarshal(typ)
	if err != nil {
		t.Fatalf("the generated configuration is not of Terraform's type: %v", err)
	}
	config := map[string]tftypes.Value{}
	if err := got.As(&config); err != nil {
		t.Fatal(err)
	}
	if !config["items"].Equal(attrs["items"]) {
		t.Errorf("items generated as %v, want %v", config["items"], attrs["items"])
	}
	if !config["flag"].Equal(tftypes.NewValue(tftypes.Bool, true)) {
		t.Errorf("flag = %v: the ConfigGenerator was not asked, or not with items unpacked", config["flag"])
	}
	if !config["id"].IsNull() || !config["name"].Equal(attrs["name"]) {
		t.Errorf("id = %v (want null, read-only), name = %v (want %v)", config["id"], config["name"], attrs["name"])
	}
}

// MoveResourceState (a `moved` block from another resource type, Terraform
// 1.8+) reaches a resource that implements ResourceWithMoveState, and the
// target state it makes comes back with its packed attribute unpacked.
func TestMoveResourceStateUnpacks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newTestServer(t)
	typ, _ := thingFixture(t)
	resp, err := s.MoveResourceState(ctx, &tfprotov6.MoveResourceStateRequest{
		SourceProviderAddress: "registry.terraform.io/example/test", SourceTypeName: "test_old", TargetTypeName: "test_thing",
		SourceState: &tfprotov6.RawState{JSON: []byte(`{"name":"t","items":[{"name":"a","n":7}]}`)},
	})
	if err != nil || len(resp.Diagnostics) > 0 || resp.TargetState == nil {
		t.Fatalf("MoveResourceState: %v %v", err, resp)
	}
	got, err := resp.TargetState.Unmarshal(typ)
	if err != nil {
		t.Fatalf("the moved state is not of Terraform's type: %v", err)
	}
	state := map[string]tftypes.Value{}
	if err := got.As(&state); err != nil {
		t.Fatal(err)
	}
	itemsType, _ := typ.AttributeTypes["items"].(tftypes.List)
	itemType, _ := itemsType.ElementType.(tftypes.Object)
	want := tftypes.NewValue(itemsType, []tftypes.Value{tftypes.NewValue(itemType, map[string]tftypes.Value{
		"name": tftypes.NewValue(tftypes.String, "a"), "n": tftypes.NewValue(tftypes.Number, big.NewFloat(7)),
	})})
	if !state["items"].Equal(want) || !state["name"].Equal(tftypes.NewValue(tftypes.String, "t")) {
		t.Errorf("moved to items %v, name %v; want %v, \"t\"", state["items"], state["name"], want)
	}
}
