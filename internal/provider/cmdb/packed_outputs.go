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

// groups and instances are packed for the framework (see package packed):
// one string of their wire bytes each instead of thousands of objects walked
// by the framework's state conversions. bench-e2e's processes row with
// with_instances = true, instances: provider CPU 57 s unpacked, 13 s packed;
// peak RSS 1.4 GiB, 356 MiB. groups (its service row, 2,000 hosts): the
// provider's share of the read, most of it, went from 12.5 s of CPU to
// a third of that. Terraform sees maps of groupType and instancesType; the
// provider never reads them back.
type (
	groupsPackedType    = packed.Of[groupsValue]
	instancesPackedType = packed.Of[instancesValue]
	groupsValue         = outputMap[groupElements]
	instancesValue      = outputMap[instanceElements]
)

// elements names the element type of a packed output map.
type elements interface {
	mapType() types.MapType
	what() string
}

type groupElements struct{}

func (groupElements) mapType() types.MapType { return groupsMapType }
func (groupElements) what() string           { return "groups" }

type instanceElements struct{}

func (instanceElements) mapType() types.MapType { return instancesMapType }
func (instanceElements) what() string           { return "instances" }

var (
	groupsMapType    = types.MapType{ElemType: groupType}
	instancesMapType = types.MapType{ElemType: instancesType}
)

// outputMap is a packed computed map of the data source.
type outputMap[E elements] struct{ basetypes.StringValue }

var (
	_ packed.Value[groupsValue]    = groupsValue{}
	_ packed.Value[instancesValue] = instancesValue{}
)

func (outputMap[E]) UnpackedSchema(ctx context.Context, a *tfprotov6.SchemaAttribute) {
	var e E
	a.Type = e.mapType().TerraformType(ctx)
}

func (outputMap[E]) UnpackedType(ctx context.Context) tftypes.Type {
	var e E
	return e.mapType().TerraformType(ctx)
}

func (outputMap[E]) Type(context.Context) attr.Type { return packed.Of[outputMap[E]]{} }

func (v outputMap[E]) Equal(o attr.Value) bool {
	other, ok := o.(outputMap[E])
	return ok && v.StringValue.Equal(other.StringValue)
}

// String is a summary: the packed bytes are no text.
func (v outputMap[E]) String() string {
	if v.IsNull() || v.IsUnknown() {
		return v.StringValue.String()
	}
	var e E
	return fmt.Sprintf("<%s, %d bytes>", e.what(), len(v.ValueString()))
}

// Unpack keeps the bytes: nothing reads them back.
func (outputMap[E]) Unpack(s basetypes.StringValue) (outputMap[E], error) {
	return outputMap[E]{s}, nil
}

// packOutput is elements as a packed output map.
func packOutput[E elements](elements map[string]attr.Value) (outputMap[E], error) {
	var e E
	b, err := packed.Encode(types.MapValueMust(e.mapType().ElemType, elements))
	return outputMap[E]{packed.String(b)}, err
}
