package packed

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Check runs, on the attributes within a packed value, what the framework
// runs in ValidateResourceConfig on those of a nested attribute
// (terraform-plugin-framework v1.19 internal/fwserver attribute_validation.go):
// a required attribute must not be null, and each validator of an attribute
// runs on its value at its path, null and unknown values included (the
// validators skip those). The framework sees only a string, so the packed
// attribute's own validator runs them, with the very validators of the
// attributes' schema.
type Check struct {
	Config             tfsdk.Config
	ClientCapabilities validator.ValidateSchemaClientCapabilities
	Diags              *diag.Diagnostics
}

// CheckObject checks the object of a, at `at`, which st says is null, unknown or
// known (then in v, decoded by c).
func CheckObject[T any](ctx context.Context, ck Check, at path.Path, a schema.SingleNestedAttribute, st State, c ObjectCodec[T], v *T) {
	ck.required(at, a, st == Null)
	ck.unchecked(at, a, len(a.Validators))
	if st == Known {
		CheckFields(ctx, ck, at, a.Attributes, c, v)
	}
}

// CheckList checks the list of a, at `at`: st says whether it is null or
// unknown, elems are its elements decoded by c, unknown marks those unknown
// as a whole (nil: none). The framework checks an unknown element's
// attributes as null, and so does this: its zero T holds only nulls.
func CheckList[T any](ctx context.Context, ck Check, at path.Path, a schema.ListNestedAttribute, st State, c ObjectCodec[T], elems []T, unknown []bool) {
	t, _ := a.NestedObject.Type().(types.ObjectType)
	l := types.ListNull(t)
	switch st {
	case Unknown:
		l = types.ListUnknown(t)
	case Known:
		l = types.ListValueMust(t, c.Elements(elems, unknown, t))
	}
	ck.Attribute(ctx, at, a, l)
	ck.unchecked(at, a, len(a.NestedObject.Validators))
	for i := range elems {
		CheckFields(ctx, ck, at.AtListIndex(i), a.NestedObject.Attributes, c, &elems[i])
	}
}

// CheckFields checks each attribute of an object, at `at`: attrs are their
// schemas, v holds their values, decoded by c.
func CheckFields[T any](ctx context.Context, ck Check, at path.Path, attrs map[string]schema.Attribute, c ObjectCodec[T], v *T) {
	for _, f := range c {
		ck.Attribute(ctx, at.AtName(f.Name), attrs[f.Name], f.Get(v))
	}
}

// Attribute checks v, the value of a at `at`.
func (ck Check) Attribute(ctx context.Context, at path.Path, a schema.Attribute, v attr.Value) {
	ck.required(at, a, v.IsNull())
	ck.writeOnly(at, a, v.IsNull())
	switch a := a.(type) {
	case schema.StringAttribute:
		validate(ck, at, v, a.Validators, func(vd validator.String, v types.String) diag.Diagnostics {
			r := &validator.StringResponse{}
			vd.ValidateString(ctx, validator.StringRequest{Config: ck.Config, ClientCapabilities: ck.ClientCapabilities,
				Path: at, PathExpression: at.Expression(), ConfigValue: v}, r)
			return r.Diagnostics
		})
	case schema.Int64Attribute:
		validate(ck, at, v, a.Validators, func(vd validator.Int64, v types.Int64) diag.Diagnostics {
			r := &validator.Int64Response{}
			vd.ValidateInt64(ctx, validator.Int64Request{Config: ck.Config, ClientCapabilities: ck.ClientCapabilities,
				Path: at, PathExpression: at.Expression(), ConfigValue: v}, r)
			return r.Diagnostics
		})
	case schema.Float64Attribute:
		validate(ck, at, v, a.Validators, func(vd validator.Float64, v types.Float64) diag.Diagnostics {
			r := &validator.Float64Response{}
			vd.ValidateFloat64(ctx, validator.Float64Request{Config: ck.Config, ClientCapabilities: ck.ClientCapabilities,
				Path: at, PathExpression: at.Expression(), ConfigValue: v}, r)
			return r.Diagnostics
		})
	case schema.ListNestedAttribute:
		validate(ck, at, v, a.Validators, func(vd validator.List, v types.List) diag.Diagnostics {
			r := &validator.ListResponse{}
			vd.ValidateList(ctx, validator.ListRequest{Config: ck.Config, ClientCapabilities: ck.ClientCapabilities,
				Path: at, PathExpression: at.Expression(), ConfigValue: v}, r)
			return r.Diagnostics
		})
	case schema.MapNestedAttribute:
		validate(ck, at, v, a.Validators, func(vd validator.Map, v types.Map) diag.Diagnostics {
			r := &validator.MapResponse{}
			vd.ValidateMap(ctx, validator.MapRequest{Config: ck.Config, ClientCapabilities: ck.ClientCapabilities,
				Path: at, PathExpression: at.Expression(), ConfigValue: v}, r)
			return r.Diagnostics
		})
	case schema.BoolAttribute:
		ck.unchecked(at, a, len(a.Validators))
	case schema.SingleNestedAttribute:
		ck.unchecked(at, a, len(a.Validators))
	case schema.MapAttribute:
		ck.unchecked(at, a, len(a.Validators))
	case schema.ListAttribute:
		ck.unchecked(at, a, len(a.Validators))
	default:
		ck.Diags.AddAttributeError(at, "Attribute not checked", fmt.Sprintf("A packed value cannot check an attribute of type %T. This is a bug in the provider.", a))
	}
}

// validate runs each validator of an attribute on its value v, a V.
func validate[V attr.Value, T any](ck Check, at path.Path, v attr.Value, validators []T, run func(T, V) diag.Diagnostics) {
	val, ok := v.(V)
	if !ok {
		ck.Diags.AddAttributeError(at, "Attribute not checked", fmt.Sprintf("A packed value holds a %T here, not a %T. This is a bug in the provider.", v, val))
		return
	}
	for _, vd := range validators {
		ck.Diags.Append(run(vd, val)...)
	}
}

// writeOnly is the framework's check of a write-only attribute set for a
// Terraform older than 1.11, which cannot take one
// (attribute_validation.go AttributeValidate).
func (ck Check) writeOnly(at path.Path, a schema.Attribute, null bool) {
	if a.IsWriteOnly() && !ck.ClientCapabilities.WriteOnlyAttributesAllowed && !null {
		ck.Diags.AddAttributeError(at, "WriteOnly Attribute Not Allowed",
			fmt.Sprintf("The resource contains a non-null value for WriteOnly attribute %s. Write-only attributes are only supported in Terraform 1.11 and later.", at.String()))
	}
}

// required is the framework's check of a required attribute.
func (ck Check) required(at path.Path, a schema.Attribute, null bool) {
	if a.IsRequired() && null {
		ck.Diags.AddAttributeError(at, "Missing Configuration for Required Attribute",
			fmt.Sprintf("Must set a configuration value for the %s attribute as the provider has marked it as required.\n\n", at.String())+
				"Refer to the provider documentation or contact the provider developers for additional information about configurable attributes that are required.")
	}
}

// unchecked refuses validators Check does not run, so that none is
// silently skipped.
func (ck Check) unchecked(at path.Path, a schema.Attribute, validators int) {
	if validators > 0 {
		ck.Diags.AddAttributeError(at, "Validators not run", fmt.Sprintf("A packed value does not run the validators of a %T. This is a bug in the provider.", a))
	}
}

// Tree checks v, the value of a at `at`, and every attribute within it, as
// the framework checks a nested attribute and the attributes of its objects
// (terraform-plugin-framework v1.19 internal/fwserver
// attribute_validation.go AttributeValidateNestedAttributes): for a packed
// value that holds framework values, such as a map of objects decoded as
// one. Null and unknown objects hold nothing to check.
func (ck Check) Tree(ctx context.Context, at path.Path, a schema.Attribute, v attr.Value) {
	if v == nil {
		return
	}
	ck.Attribute(ctx, at, a, v)
	if v.IsNull() || v.IsUnknown() {
		return
	}
	switch a := a.(type) {
	case schema.SingleNestedAttribute:
		if o, ok := v.(types.Object); ok {
			ck.fields(ctx, at, a.Attributes, o.Attributes())
		}
	case schema.ListNestedAttribute:
		if l, ok := v.(types.List); ok {
			for i, el := range l.Elements() {
				ck.element(ctx, at.AtListIndex(i), a.NestedObject, el)
			}
		}
	case schema.MapNestedAttribute:
		if m, ok := v.(types.Map); ok {
			els := m.Elements() // a copy, each call
			for _, k := range slices.Sorted(maps.Keys(els)) {
				ck.element(ctx, at.AtMapKey(k), a.NestedObject, els[k])
			}
		}
	}
}

// element checks one object of a nested attribute: the object's validators
// (null and unknown objects included, as the framework runs them), then its
// attributes.
func (ck Check) element(ctx context.Context, at path.Path, obj schema.NestedAttributeObject, el attr.Value) {
	o, ok := el.(types.Object)
	if !ok {
		return
	}
	for _, vd := range obj.Validators {
		r := &validator.ObjectResponse{}
		vd.ValidateObject(ctx, validator.ObjectRequest{Config: ck.Config, ClientCapabilities: ck.ClientCapabilities,
			Path: at, PathExpression: at.Expression(), ConfigValue: o}, r)
		ck.Diags.Append(r.Diagnostics...)
	}
	if !o.IsNull() && !o.IsUnknown() {
		ck.fields(ctx, at, obj.Attributes, o.Attributes())
	}
}

// fields checks each attribute of an object, in name order.
func (ck Check) fields(ctx context.Context, at path.Path, attrs map[string]schema.Attribute, vals map[string]attr.Value) {
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		ck.Tree(ctx, at.AtName(name), attrs[name], vals[name])
	}
}
