package packed

import (
	"bytes"
	"context"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// thingFixture is a test_thing value as Terraform sends it, with items in
// every form (known, an unknown attribute, an element unknown as a whole, a
// number beyond int64's text) beside attributes that are not packed.
func thingFixture(t *testing.T) (tftypes.Object, tftypes.Value) {
	t.Helper()
	s := newTestServer(t)
	schemas, err := s.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := schemas.ResourceSchemas["test_thing"].ValueType().(tftypes.Object)
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	itemsType, _ := typ.AttributeTypes["items"].(tftypes.List)
	itemType, _ := itemsType.ElementType.(tftypes.Object)
	it := func(name, n any) tftypes.Value {
		return tftypes.NewValue(itemType, map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, name), "n": tftypes.NewValue(tftypes.Number, n)})
	}
	attrs["name"] = tftypes.NewValue(tftypes.String, "t")
	attrs["size"] = tftypes.NewValue(tftypes.Number, big.NewFloat(3))
	attrs["items"] = tftypes.NewValue(itemsType, []tftypes.Value{
		it("a", big.NewFloat(1)), it(nil, big.NewFloat(1<<40)), it(tftypes.UnknownValue, nil),
		tftypes.NewValue(itemType, tftypes.UnknownValue),
	})
	return typ, tftypes.NewValue(typ, attrs)
}

// Packing and unpacking give back Terraform's bytes exactly, and the packed
// value is one the framework reads with its own schema.
func TestPackedRoundTrip(t *testing.T) {
	t.Parallel()
	typ, value := thingFixture(t)
	pa := newTestServer(t).packed
	wire, err := tfprotov6.NewDynamicValue(typ, value)
	if err != nil {
		t.Fatal(err)
	}
	dv := &wire
	if err := pa.pack("test_thing", &dv); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(dv.MsgPack, wire.MsgPack) {
		t.Fatal("packing changed nothing")
	}
	framework := frameworkType(t, pa["test_thing"], typ)
	if _, err := dv.Unmarshal(framework); err != nil {
		t.Fatalf("the framework cannot read the packed value: %v", err)
	}
	if err := pa.unpack("test_thing", &dv); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dv.MsgPack, wire.MsgPack) {
		t.Error("unpacking did not give back the bytes Terraform sent")
	}
}

// frameworkType is typ as the framework holds it: every packed attribute a string.
func frameworkType(t *testing.T, packed map[string]Type, typ tftypes.Object) tftypes.Object {
	t.Helper()
	out := tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}
	for name, at := range typ.AttributeTypes {
		out.AttributeTypes[name] = at
		if packed[name] != nil {
			out.AttributeTypes[name] = tftypes.String
		}
	}
	if len(packed) != 1 {
		t.Fatalf("packed attributes %v, want items", packed)
	}
	return out
}
