package plumbing

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// WithTypesBuilt gives every nested attribute in attrs, at any depth, the
// type the framework would derive from its attributes, as its CustomType. The types are the framework's own (types.ObjectType,
// types.ListType, …), so values, plans and state are unchanged.
//
// Why: terraform-plugin-framework v1.19 rebuilds a nested attribute's type
// from its attributes (maps of maps) on every GetType call unless CustomType
// is set, and it calls it for every step of every attribute path, for every
// value of every request (NullifyCollectionBlocks, defaults, plan
// modification, path conversion). For the spec of gse_managed_process that
// was a quarter of what a refresh allocates per resource
// (BenchmarkManagedProcessRefresh).
func WithTypesBuilt(attrs map[string]schema.Attribute) {
	for name, a := range attrs {
		switch a := a.(type) {
		case schema.SingleNestedAttribute:
			if a.CustomType == nil {
				WithTypesBuilt(a.Attributes)
				a.CustomType = objectTypeOf(a.Attributes)
			}
			attrs[name] = a
		case schema.ListNestedAttribute:
			a.NestedObject = nestedObjectBuilt(a.NestedObject)
			if a.CustomType == nil {
				a.CustomType = types.ListType{ElemType: a.NestedObject.CustomType}
			}
			attrs[name] = a
		case schema.SetNestedAttribute:
			a.NestedObject = nestedObjectBuilt(a.NestedObject)
			if a.CustomType == nil {
				a.CustomType = types.SetType{ElemType: a.NestedObject.CustomType}
			}
			attrs[name] = a
		case schema.MapNestedAttribute:
			a.NestedObject = nestedObjectBuilt(a.NestedObject)
			if a.CustomType == nil {
				a.CustomType = types.MapType{ElemType: a.NestedObject.CustomType}
			}
			attrs[name] = a
		}
	}
}

func nestedObjectBuilt(o schema.NestedAttributeObject) schema.NestedAttributeObject {
	WithTypesBuilt(o.Attributes)
	if o.CustomType == nil {
		o.CustomType = objectTypeOf(o.Attributes)
	}
	return o
}

// objectTypeOf is the object type of attrs, built as the framework builds it.
func objectTypeOf(attrs map[string]schema.Attribute) basetypes.ObjectType {
	ats := make(map[string]attr.Type, len(attrs))
	for name, a := range attrs {
		ats[name] = a.GetType()
	}
	return basetypes.ObjectType{AttrTypes: ats}
}
