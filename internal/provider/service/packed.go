package service

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// processes, instances and config_files are packed for the framework (see
// package packed): one string each instead of maps of thousands of objects
// that the framework walks several times per RPC. Profiled at 500 hosts × 5
// templates (TF_GSE_PPROF_DIR), unpacked, those walks
// (NullifyCollectionBlocks, the plan modification of every nested attribute,
// TypeAtTerraformPath) and the garbage they made were most of the provider's
// 85 s of CPU in one plan. config_files with a file per instance was worse:
// the plan modification of a map nested attribute copies the whole map for
// each element (framework v1.19 fwserver mapElemObject, MapValue.Elements),
// quadratic in the files, 2.3 GB of a 1,000-host apply's 11.7 GB allocated.
// The provider decodes each once, where it reads it.

// mapSchema names the map nested attribute a packedMap holds.
type mapSchema interface {
	attribute() schema.MapNestedAttribute
}

type processesSchema struct{}

func (processesSchema) attribute() schema.MapNestedAttribute { return processesAttr }

type instancesSchema struct{}

func (instancesSchema) attribute() schema.MapNestedAttribute { return instancesAttr }

type configFilesSchema struct{}

func (configFilesSchema) attribute() schema.MapNestedAttribute { return configFilesAttr }

// The attributes, built once with their types.
var (
	processesAttr   = builtMap(processesAttribute())
	instancesAttr   = builtMap(instancesAttribute())
	configFilesAttr = builtMap(configFilesAttribute())
)

func builtMap(a schema.MapNestedAttribute) schema.MapNestedAttribute {
	attrs := map[string]schema.Attribute{"a": a}
	plumbing.WithTypesBuilt(attrs)
	out, _ := attrs["a"].(schema.MapNestedAttribute)
	return out
}

// packedMap is a packed map nested attribute: its wire bytes (the string)
// and the map decoded from them, when first asked for (Map). The framework
// makes a value of each packed attribute wherever it reads one (Get, plan
// modification, equality checks), and decoding them all there was most of
// the provider's CPU in a 2,000-host apply (14 s of 38 s): most are never
// read.
type packedMap[S mapSchema] struct {
	basetypes.StringValue
	dec *decodedMap // nil for the zero value: null
}

// decodedMap is a packed map's decoding, done once for all copies of it.
type decodedMap struct {
	once sync.Once
	from basetypes.StringValue
	t    types.MapType
	m    types.Map
	err  error
}

// decoded is d's map, decoded from its string on the first call.
func (d *decodedMap) decoded() (types.Map, error) {
	d.once.Do(func() { d.m, d.err = decodeMap(d.from, d.t) })
	return d.m, d.err
}

// decodeMap decodes s, MessagePack as Terraform wrote it, to t's framework value.
func decodeMap(s basetypes.StringValue, t types.MapType) (types.Map, error) {
	switch {
	case s.IsNull():
		return types.MapNull(t.ElemType), nil
	case s.IsUnknown():
		return types.MapUnknown(t.ElemType), nil
	}
	raw, err := (&tfprotov6.DynamicValue{MsgPack: []byte(s.ValueString())}).Unmarshal(t.TerraformType(context.Background()))
	if err != nil {
		return types.MapNull(t.ElemType), err
	}
	mv, err := t.ValueFromTerraform(context.Background(), raw)
	if err != nil {
		return types.MapNull(t.ElemType), err
	}
	m, _ := mv.(types.Map)
	return m, nil
}

var (
	_ packed.Value[packedMap[processesSchema]]   = packedMap[processesSchema]{}
	_ packed.Value[packedMap[instancesSchema]]   = packedMap[instancesSchema]{}
	_ packed.Value[packedMap[configFilesSchema]] = packedMap[configFilesSchema]{}
)

func (packedMap[S]) mapType() types.MapType {
	var s S
	t, _ := s.attribute().GetType().(types.MapType)
	return t
}

func (packedMap[S]) UnpackedSchema(ctx context.Context, a *tfprotov6.SchemaAttribute) {
	var s S
	a.Type, a.NestedType = nil, packed.SchemaAttribute(ctx, a.Name, s.attribute()).NestedType
}

func (v packedMap[S]) UnpackedType(ctx context.Context) tftypes.Type {
	return v.mapType().TerraformType(ctx)
}

func (packedMap[S]) Type(context.Context) attr.Type { return packed.Of[packedMap[S]]{} }

func (v packedMap[S]) Equal(o attr.Value) bool {
	other, ok := o.(packedMap[S])
	return ok && v.StringValue.Equal(other.StringValue)
}

// String is a summary: the packed bytes are no text.
func (v packedMap[S]) String() string {
	if v.IsNull() || v.IsUnknown() {
		return v.StringValue.String()
	}
	return fmt.Sprintf("<%d bytes packed>", len(v.ValueString()))
}

// Unpack takes s, MessagePack as Terraform wrote it; Map decodes it.
func (v packedMap[S]) Unpack(s basetypes.StringValue) (packedMap[S], error) {
	return packedMap[S]{StringValue: s, dec: &decodedMap{from: s, t: v.mapType()}}, nil
}

// Map is the map the value holds, decoded on first use; a value Terraform
// wrote that does not decode to the attribute's type is the provider's bug,
// reported in diags.
func (v packedMap[S]) Map(diags *diag.Diagnostics) types.Map {
	if v.dec == nil {
		return types.MapNull(v.mapType().ElemType)
	}
	m, err := v.dec.decoded()
	if err != nil {
		diags.AddError("Could not decode a packed value", fmt.Sprintf("%T: %v. This is a bug in the provider.", v, err))
	}
	return m
}

// decodedAs is a decodedMap already holding m.
func decodedAs(m types.Map) *decodedMap {
	d := &decodedMap{m: m}
	d.once.Do(func() {})
	return d
}

// packMap is m packed.
func packMap[S mapSchema](m types.Map) (packedMap[S], error) {
	if m.IsNull() || m.IsUnknown() {
		return packedMap[S]{StringValue: types.StringNull(), dec: decodedAs(m)}, nil
	}
	b, err := packed.Encode(m)
	return packedMap[S]{StringValue: packed.String(b), dec: decodedAs(m)}, err
}

// packedChecks runs, on a packed map, what the framework would run on its
// attributes were it not packed (packed.Check.Tree).
type packedChecks[S mapSchema] struct{}

func (packedChecks[S]) Description(context.Context) string {
	return "each attribute within is as its schema says"
}

func (c packedChecks[S]) MarkdownDescription(ctx context.Context) string { return c.Description(ctx) }

func (packedChecks[S]) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	v, _ := packedMap[S]{}.Unpack(req.ConfigValue)
	m, err := v.dec.decoded()
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid value", err.Error())
		return
	}
	var s S
	ck := packed.Check{Config: req.Config, ClientCapabilities: req.ClientCapabilities, Diags: &resp.Diagnostics}
	ck.Tree(ctx, req.Path, s.attribute(), m)
}

// packedAttribute is a as a packed string attribute.
func packedAttribute[S mapSchema](a schema.MapNestedAttribute) schema.StringAttribute {
	return schema.StringAttribute{Required: a.Required, Optional: a.Optional, Computed: a.Computed, MarkdownDescription: a.MarkdownDescription,
		CustomType: packed.Of[packedMap[S]]{}, Validators: []validator.String{packedChecks[S]{}}}
}
