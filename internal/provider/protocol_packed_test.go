package provider_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// packedFixture is a gse_managed_process value as Terraform sends it, with
// hosts in every form (by ip, by agent id, an unknown attribute, an element
// unknown as a whole) and host_status with null and known facts.
func packedFixture(t *testing.T) (tftypes.Object, tftypes.Value) {
	t.Helper()
	ctx := context.Background()
	server, err := packed.NewProtocol6(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := schemas.ResourceSchemas["gse_managed_process"].ValueType().(tftypes.Object)
	hostsType, _ := typ.AttributeTypes["hosts"].(tftypes.List)
	hostType, _ := hostsType.ElementType.(tftypes.Object)
	str := func(v any) tftypes.Value { return tftypes.NewValue(tftypes.String, v) }
	num := func(v any) tftypes.Value { return tftypes.NewValue(tftypes.Number, v) }
	host := func(ip, agent, cloud, supplier tftypes.Value) tftypes.Value {
		return tftypes.NewValue(hostType, map[string]tftypes.Value{"ip": ip, "agent_id": agent, "bk_cloud_id": cloud, "bk_supplier_id": supplier})
	}
	statusType, _ := typ.AttributeTypes["host_status"].(tftypes.Map)
	value := acctest.BenchValue(typ, map[string]any{"meta": map[string]any{"namespace": "gse", "name": "p"}})
	attrs := map[string]tftypes.Value{}
	if err := value.As(&attrs); err != nil {
		t.Fatal(err)
	}
	attrs["hosts"] = tftypes.NewValue(hostsType, []tftypes.Value{
		host(str("10.0.0.1"), str(nil), num(0), num(0)),
		host(str(nil), str("0200000007525400f355781710390005465c"), num(nil), num(1<<40)),
		host(str(tftypes.UnknownValue), str(nil), num(3), num(nil)),
		tftypes.NewValue(hostType, tftypes.UnknownValue),
	})
	attrs["host_status"] = tftypes.NewValue(statusType, map[string]tftypes.Value{
		"0:10.0.0.1": acctest.BenchValue(statusType.ElementType, map[string]any{"status": "running", "managed": true}),
		"0:10.0.0.2": acctest.BenchValue(statusType.ElementType, map[string]any{}),
	})
	return typ, tftypes.NewValue(typ, attrs)
}

// The provider's own encoding of hosts and host_status is Terraform's, so an
// unchanged value compares equal to the one Terraform sent: the same value,
// and for a list the same bytes.
func TestPackedEncodingIsTerraforms(t *testing.T) {
	t.Parallel()
	typ, value := packedFixture(t)
	attrs := map[string]tftypes.Value{}
	if err := value.As(&attrs); err != nil {
		t.Fatal(err)
	}
	for name, ours := range map[string]func(b []byte) ([]byte, error){
		"hosts": func(b []byte) ([]byte, error) {
			l, err := hosts.List{}.Unpack(packed.String(b))
			return []byte(hosts.Pack(l.Hosts(), l.Unknown).ValueString()), err
		},
		"host_status": func(b []byte) ([]byte, error) {
			m, err := status.HostStatus{}.Unpack(packed.String(b))
			return []byte(status.NewHostStatus(m.Entries).ValueString()), err
		},
	} {
		theirs, err := tfprotov6.NewDynamicValue(typ.AttributeTypes[name], attrs[name])
		if err != nil {
			t.Fatal(err)
		}
		got, err := ours(theirs.MsgPack)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		decoded, err := (&tfprotov6.DynamicValue{MsgPack: got}).Unmarshal(typ.AttributeTypes[name])
		if err != nil || !decoded.Equal(attrs[name]) {
			t.Errorf("%s: the provider encodes %v (%v), want %v", name, decoded, err, attrs[name])
		}
		// A list's bytes are one; Terraform orders a map's keys, which the
		// test's encoder (tftypes) does not.
		if name == "hosts" && !bytes.Equal(got, theirs.MsgPack) {
			t.Errorf("%s: the provider encodes\n%x\nTerraform\n%x", name, got, theirs.MsgPack)
		}
	}
}

// A stored state (JSON) upgrades to the value it holds, packed attributes
// included.
func TestPackedUpgradeState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	server, err := packed.NewProtocol6(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := packedFixture(t)
	state := acctest.BenchValue(typ, map[string]any{
		"id":    "gse:p",
		"meta":  map[string]any{"namespace": "gse", "name": "p"},
		"hosts": []any{map[string]any{"ip": "10.0.0.1", "bk_cloud_id": 0, "bk_supplier_id": 0}, map[string]any{"agent_id": "0:10.0.0.2", "bk_supplier_id": 0}},
		"host_status": map[string]any{
			"0:10.0.0.1": map[string]any{"status": "running", "managed": true, "pid": 42},
			"0:10.0.0.2": map[string]any{},
		},
	})
	raw, err := json.Marshal(acctest.BenchJSON(state))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: "gse_managed_process", RawState: &tfprotov6.RawState{JSON: raw}})
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("upgrade: %v %v", err, resp.Diagnostics)
	}
	got, err := resp.UpgradedState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(state) {
		t.Errorf("upgraded to\n%v\nwant\n%v", got, state)
	}
}
