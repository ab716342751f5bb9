package cmdb

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
)

// instances is packed for the framework (see package packed): one string
// of its wire bytes instead of 20,000 objects walked by the framework's
// state conversions (bench-e2e's processes row with with_instances = true:
// provider CPU 57 s unpacked, 13 s packed; peak RSS 1.4 GiB, 356 MiB).
// Terraform sees a map of instancesType; the provider never reads it back.
type instancesPackedType = packed.Of[instancesValue]

// instancesValue is a packed instances.
type instancesValue struct{ basetypes.StringValue }

var _ packed.Value[instancesValue] = instancesValue{}

var instancesMapType = types.MapType{ElemType: instancesType}

func (instancesValue) UnpackedSchema(ctx context.Context, a *tfprotov6.SchemaAttribute) {
	a.Type = instancesMapType.TerraformType(ctx)
}

func (instancesValue) UnpackedType(ctx context.Context) tftypes.Type {
	return instancesMapType.TerraformType(ctx)
}

func (instancesValue) Type(context.Context) attr.Type { return instancesPackedType{} }

func (v instancesValue) Equal(o attr.Value) bool {
	other, ok := o.(instancesValue)
	return ok && v.StringValue.Equal(other.StringValue)
}

// String is a summary: the packed bytes are no text.
func (v instancesValue) String() string {
	if v.IsNull() || v.IsUnknown() {
		return v.StringValue.String()
	}
	return fmt.Sprintf("<instances, %d bytes>", len(v.ValueString()))
}

// Unpack keeps the bytes: nothing reads them back.
func (instancesValue) Unpack(s basetypes.StringValue) (instancesValue, error) {
	return instancesValue{s}, nil
}

// packInstances is elements as a packed instances.
func packInstances(elements map[string]attr.Value) (instancesValue, error) {
	b, err := packed.Encode(types.MapValueMust(instancesType, elements))
	return instancesValue{packed.String(b)}, err
}
