package packed_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
)

// Encode writes what Terraform reads as the value the framework would have
// sent: objects, maps and lists of every scalar, nulls among them.
func TestEncodeIsTheFrameworks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	elem := types.ObjectType{AttrTypes: map[string]attr.Type{
		"s": types.StringType, "n": types.Int64Type, "f": types.Float64Type, "b": types.BoolType,
		"l": types.ListType{ElemType: types.StringType}, "m": types.MapType{ElemType: types.StringType},
	}}
	obj := func(s string, n int64) attr.Value {
		return types.ObjectValueMust(elem.AttrTypes, map[string]attr.Value{
			"s": types.StringValue(s), "n": types.Int64Value(n), "f": types.Float64Value(30.5), "b": types.BoolValue(n > 0),
			"l": types.ListValueMust(types.StringType, []attr.Value{types.StringValue("x"), types.StringNull()}),
			"m": types.MapValueMust(types.StringType, map[string]attr.Value{"z": types.StringValue("1"), "a": types.StringValue("")}),
		})
	}
	v := types.MapValueMust(elem, map[string]attr.Value{"b/x@0:10.0.0.1": obj("two", -70000), "a": obj("one", 1795601928), "c": types.ObjectNull(elem.AttrTypes)})
	b, err := packed.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	typ := v.Type(ctx).TerraformType(ctx)
	got, err := (&tfprotov6.DynamicValue{MsgPack: b}).Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	want, err := v.ToTerraformValue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) {
		t.Fatalf("Encode decodes to\n%s\nwant\n%s", got, want)
	}
}
