package processoperation

import (
	"fmt"

	aschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// actionAttributes turns resource attributes into the same arguments of an
// action, so an action and the resource it mirrors share one definition:
// types, descriptions and validators carry over; plan modifiers and
// defaults do not exist for actions and are dropped, and so are computed-only
// attributes (an action has no state). It panics on an attribute kind it
// does not know, which the provider's schema tests catch.
func actionAttributes(in map[string]rschema.Attribute) map[string]aschema.Attribute {
	out := make(map[string]aschema.Attribute, len(in))
	for name, a := range in {
		if a.IsComputed() && !a.IsOptional() && !a.IsRequired() {
			continue
		}
		out[name] = actionAttribute(a)
	}
	return out
}

func actionAttribute(a rschema.Attribute) aschema.Attribute {
	switch a := a.(type) {
	case rschema.StringAttribute:
		return aschema.StringAttribute{Required: a.Required, Optional: a.Optional, Description: a.Description, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators, CustomType: a.CustomType}
	case rschema.Int64Attribute:
		return aschema.Int64Attribute{Required: a.Required, Optional: a.Optional, Description: a.Description, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators, CustomType: a.CustomType}
	case rschema.Float64Attribute:
		return aschema.Float64Attribute{Required: a.Required, Optional: a.Optional, Description: a.Description, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators, CustomType: a.CustomType}
	case rschema.BoolAttribute:
		return aschema.BoolAttribute{Required: a.Required, Optional: a.Optional, Description: a.Description, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators, CustomType: a.CustomType}
	case rschema.MapAttribute:
		return aschema.MapAttribute{ElementType: a.ElementType, Required: a.Required, Optional: a.Optional, Description: a.Description, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators, CustomType: a.CustomType}
	case rschema.ListAttribute:
		return aschema.ListAttribute{ElementType: a.ElementType, Required: a.Required, Optional: a.Optional, Description: a.Description, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators, CustomType: a.CustomType}
	case rschema.SetAttribute:
		return aschema.SetAttribute{ElementType: a.ElementType, Required: a.Required, Optional: a.Optional, Description: a.Description, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators, CustomType: a.CustomType}
	case rschema.SingleNestedAttribute:
		return aschema.SingleNestedAttribute{Attributes: actionAttributes(a.Attributes), Required: a.Required, Optional: a.Optional, Description: a.Description, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators, CustomType: a.CustomType}
	case rschema.ListNestedAttribute:
		return aschema.ListNestedAttribute{NestedObject: actionObject(a.NestedObject), Required: a.Required, Optional: a.Optional, Description: a.Description, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators, CustomType: a.CustomType}
	case rschema.SetNestedAttribute:
		return aschema.SetNestedAttribute{NestedObject: actionObject(a.NestedObject), Required: a.Required, Optional: a.Optional, Description: a.Description, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators, CustomType: a.CustomType}
	}
	panic(fmt.Sprintf("actionAttribute: %T has no action counterpart here", a))
}

func actionObject(o rschema.NestedAttributeObject) aschema.NestedAttributeObject {
	return aschema.NestedAttributeObject{Attributes: actionAttributes(o.Attributes), Validators: o.Validators, CustomType: o.CustomType}
}

// quoted lists names as Markdown code, comma-separated: `a`, `b`.
func quoted(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += "`" + n + "`"
	}
	return s
}
