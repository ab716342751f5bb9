package packed

import (
	"context"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// SchemaAttribute is a, named name, as the framework tells Terraform of it
// (terraform-plugin-framework v1.19 internal/toproto6 SchemaAttribute): for
// the UnpackedSchema of a value whose schema the provider writes as a
// framework attribute, so that Terraform sees the same schema packed or not.
func SchemaAttribute(ctx context.Context, name string, a schema.Attribute) *tfprotov6.SchemaAttribute {
	out := &tfprotov6.SchemaAttribute{Name: name, Required: a.IsRequired(), Optional: a.IsOptional(), Computed: a.IsComputed(),
		Sensitive: a.IsSensitive(), WriteOnly: a.IsWriteOnly()}
	if m := a.GetDeprecationMessage(); m != "" {
		out.Deprecated, out.DeprecationMessage = true, m
	}
	if d := a.GetDescription(); d != "" {
		out.Description, out.DescriptionKind = d, tfprotov6.StringKindPlain
	}
	if d := a.GetMarkdownDescription(); d != "" {
		out.Description, out.DescriptionKind = d, tfprotov6.StringKindMarkdown
	}
	nesting, attrs := nestedAttributes(a)
	if attrs == nil {
		out.Type = a.GetType().TerraformType(ctx)
		return out
	}
	out.NestedType = &tfprotov6.SchemaObject{Nesting: nesting}
	for _, n := range slices.Sorted(maps.Keys(attrs)) {
		out.NestedType.Attributes = append(out.NestedType.Attributes, SchemaAttribute(ctx, n, attrs[n]))
	}
	return out
}

// nestedAttributes are the attributes of a nested attribute's objects, and how
// they nest; nil for any other attribute.
func nestedAttributes(a schema.Attribute) (tfprotov6.SchemaObjectNestingMode, map[string]schema.Attribute) {
	switch a := a.(type) {
	case schema.SingleNestedAttribute:
		return tfprotov6.SchemaObjectNestingModeSingle, a.Attributes
	case schema.ListNestedAttribute:
		return tfprotov6.SchemaObjectNestingModeList, a.NestedObject.Attributes
	case schema.SetNestedAttribute:
		return tfprotov6.SchemaObjectNestingModeSet, a.NestedObject.Attributes
	case schema.MapNestedAttribute:
		return tfprotov6.SchemaObjectNestingModeMap, a.NestedObject.Attributes
	}
	return tfprotov6.SchemaObjectNestingModeInvalid, nil
}
