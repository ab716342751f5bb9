package packed

import (
	"bytes"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

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
