package spec

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// This file holds gse_managed_process.spec packed for the framework (see
// package packed): Terraform sees Schema, the framework one string, which
// the provider decodes into a Model, and checks with Schema's own
// validators (specChecks). Packed, a refresh no longer pays the framework's
// walks of its 30 attributes.

// TypedAttribute is NestedAttribute with its types built: spec as
// Terraform sees it, the type, the schema and the validators of its
// attributes, for reading them.
var TypedAttribute = func() schema.SingleNestedAttribute {
	attrs := map[string]schema.Attribute{"spec": NestedAttribute("")}
	plumbing.WithTypesBuilt(attrs)
	a, _ := attrs["spec"].(schema.SingleNestedAttribute)
	return a
}()

// PackedAttribute is spec as gse_managed_process holds it: one packed
// string the framework does not walk (Value).
func PackedAttribute(desc string) schema.StringAttribute {
	a := NestedAttribute(desc)
	return schema.StringAttribute{Required: a.Required, MarkdownDescription: a.MarkdownDescription, CustomType: specType{},
		Validators: []validator.String{specChecks{}}}
}

// specType is the framework's type of gse_managed_process.spec.
type specType = packed.Of[Value]

func (Value) UnpackedSchema(ctx context.Context, a *tfprotov6.SchemaAttribute) {
	a.Type, a.NestedType = nil, packed.SchemaAttribute(ctx, a.Name, TypedAttribute).NestedType
}

func (Value) UnpackedType(ctx context.Context) tftypes.Type {
	return TypedAttribute.GetType().TerraformType(ctx)
}

// Value is a packed spec: the wire bytes (the string), and the spec
// decoded from them once.
type Value struct {
	basetypes.StringValue
	Decoded *Model // nil when null or unknown
	// partial: an object or list within is unknown as a whole. Its
	// attributes read as null, as the framework reads them.
	Partial bool
}

var _ packed.Value[Value] = Value{}

func (Value) Type(context.Context) attr.Type { return specType{} }

func (v Value) Equal(o attr.Value) bool {
	other, ok := o.(Value)
	return ok && v.StringValue.Equal(other.StringValue)
}

// String is a summary: the packed bytes are no text.
func (v Value) String() string {
	if v.IsNull() || v.IsUnknown() {
		return v.StringValue.String()
	}
	return "<spec>"
}

// Model is the spec, every attribute null when it is null or unknown.
func (v Value) Model() Model {
	if v.Decoded == nil {
		return Model{}
	}
	return *v.Decoded
}

// Expand converts the spec; null stays nil (an imported resource before its first apply).
func (v Value) Expand() *gse.Spec { return v.Decoded.Expand() }

// Unpack decodes a packed spec; null and unknown stay so.
func (Value) Unpack(s basetypes.StringValue) (Value, error) {
	return decodeSpec(context.Background(), s, nil, path.Empty())
}

// decodeSpec decodes s; with ck, it also checks each attribute within, s
// being the spec at `at`.
func decodeSpec(ctx context.Context, s basetypes.StringValue, ck *packed.Check, at path.Path) (Value, error) {
	v, d := Value{StringValue: s}, packed.Decoder(s)
	if d == nil {
		return v, nil
	}
	v.Decoded = &Model{}
	n, err := d.DecodeMapLen()
	if err != nil || n < 0 {
		return v, fmt.Errorf("spec is not an object (%v)", err)
	}
	for range n {
		k, err := d.DecodeString()
		if err != nil {
			return v, fmt.Errorf("spec: %w", err)
		}
		part := specParts[k]
		if part == nil {
			return v, fmt.Errorf("spec: unexpected attribute %q", k)
		}
		if err := part(ctx, d, &v, ck, at.AtName(k)); err != nil {
			return v, fmt.Errorf("spec.%s: %w", k, err)
		}
	}
	return v, nil
}

// specChecks runs on spec what the framework would run on its attributes,
// were spec not packed (packed.Check).
type specChecks struct{}

func (specChecks) Description(context.Context) string {
	return "each attribute of spec is as its schema says"
}

func (c specChecks) MarkdownDescription(ctx context.Context) string { return c.Description(ctx) }

func (specChecks) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	ck := packed.Check{Config: req.Config, ClientCapabilities: req.ClientCapabilities, Diags: &resp.Diagnostics}
	if _, err := decodeSpec(ctx, req.ConfigValue, &ck, req.Path); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid spec", err.Error())
	}
}

// specPart decodes an attribute of spec, at `at`, into v, and with ck checks it.
type specPart func(ctx context.Context, d *msgpack.Decoder, v *Value, ck *packed.Check, at path.Path) error

// specParts are the attributes of spec, by name: each an object, or a list
// of objects, of Model.
var specParts = map[string]specPart{
	"identity":           objectPart("identity", func(s *Model) *identityModel { return &s.Identity }),
	"control":            objectPart("control", func(s *Model) *controlModel { return &s.Control }),
	"resource":           objectPart("resource", func(s *Model) *resourceLimitsModel { return &s.Resource }),
	"monitor_policy":     objectPart("monitor_policy", func(s *Model) *monitorPolicyModel { return &s.MonitorPolicy }),
	"warn_report_policy": optionalPart("warn_report_policy", func(s *Model) **warnReportPolicyModel { return &s.WarnReportPolicy }),
	"configmap":          listPart("configmap", func(s *Model) *[]configMapModel { return &s.Configmap }),
}

// objectPart is the attribute name of spec, an object that field holds.
func objectPart[T any](name string, field func(s *Model) *T) specPart {
	return objectPartAt(name, func(s *Model, _ packed.State) *T { return field(s) })
}

// optionalPart is the attribute name of spec, an object that field points
// to, nil when it is null.
func optionalPart[T any](name string, field func(s *Model) **T) specPart {
	return objectPartAt(name, func(s *Model, st packed.State) *T {
		if st == packed.Known {
			*field(s) = new(T)
		}
		return *field(s)
	})
}

// objectPartAt is the attribute name of spec, an object that place gives
// the address of once its state is read.
func objectPartAt[T any](name string, place func(s *Model, st packed.State) *T) specPart {
	c, a := packed.CodecOf[T](), nestedAt[schema.SingleNestedAttribute](name)
	return func(ctx context.Context, d *msgpack.Decoder, v *Value, ck *packed.Check, at path.Path) error {
		st, err := packed.ReadState(d)
		if err != nil {
			return err
		}
		obj := place(v.Decoded, st)
		if st == packed.Known {
			if _, err := c.Decode(d, obj); err != nil {
				return err
			}
		}
		v.Partial = v.Partial || st == packed.Unknown
		if ck != nil {
			packed.CheckObject(ctx, *ck, at, a, st, c, obj)
		}
		return nil
	}
}

// listPart is the attribute name of spec, a list of objects that field holds.
func listPart[T any](name string, field func(s *Model) *[]T) specPart {
	c, a := packed.CodecOf[T](), nestedAt[schema.ListNestedAttribute](name)
	return func(ctx context.Context, d *msgpack.Decoder, v *Value, ck *packed.Check, at path.Path) error {
		var unknown []bool
		st, err := c.DecodeList(d, field(v.Decoded), &unknown)
		v.Partial = v.Partial || st == packed.Unknown || unknown != nil
		if err == nil && ck != nil {
			packed.CheckList(ctx, *ck, at, a, st, c, *field(v.Decoded), unknown)
		}
		return err
	}
}

// nestedAt is the schema of spec's attribute name.
func nestedAt[A schema.Attribute](name string) A {
	a, ok := TypedAttribute.Attributes[name].(A)
	if !ok {
		panic(fmt.Sprintf("spec.%s is no %T", name, a))
	}
	return a
}
