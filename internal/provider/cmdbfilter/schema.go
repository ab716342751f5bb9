package cmdbfilter

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

const cmdbConditionDesc = "How the rules combine: `AND` or `OR`."

func mdList(vs []string) string { return "`" + strings.Join(vs, "`, `") + "`" }

// cmdbTestAttributes are the attributes of a field test of f.
func cmdbTestAttributes(f Object) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"field": schema.StringAttribute{Optional: true,
			MarkdownDescription: f.object + " field to test: " + f.example + ". " +
				"A letter or digit, then letters, digits, `_`, `-` or `.` (CMDB refuses other names).",
			Validators: []validator.String{stringvalidator.RegexMatches(cmdbFieldPattern, "must be a CMDB field id (a letter or digit, then letters, digits, _, - or .)")}},
		"operator": schema.StringAttribute{Optional: true,
			MarkdownDescription: "One of " + mdList(cmdbEqualOperators) + " (take `value` or `number`), " + mdList(cmdbListOperators) + " (take `values` or `numbers`), " +
				mdList(cmdbCompareOperators) + " (take `number`, on any numeric field) and the string operators " + mdList(cmdbStringOperators) +
				" (take `value`, a regular expression: see `value`). `between` is not supported by CMDB: put `greater_or_equal` and `less_or_equal` in a group with condition `AND`.",
			Validators: []validator.String{cmdbOperatorValidator{}}},
		"value": schema.StringAttribute{Optional: true,
			MarkdownDescription: "The string of `equal`, `not_equal` and the string operators (not empty for these). " +
				"The string operators send it to CMDB as an unescaped MongoDB regular expression: `begins_with` tests `^value`, `ends_with` `value$`, `contains` `value` (and the `not_` forms their negation), " +
				"so a `.` matches any character (`begins_with` with `10.0.0.` also matches `10.0.0x` and `10.0.010`), and only `contains` ignores case (`not_contains` does not). Set `literal` to match the text as written. " +
				"The string operators match string fields only: on a numeric field they match no " + f.name() + " (their `not_` forms every " + f.name() + "). " +
				"On the numeric fields " + mdList(f.numeric) + " an integer `value` of `equal`, `not_equal` or a comparison is sent as a number; on any other field use `number`." + ipv6Note(f)},
		"values": schema.ListAttribute{Optional: true, ElementType: types.StringType,
			MarkdownDescription: "The strings of `in` and `not_in` (integers on " + mdList(f.numeric) + ", sent as numbers). Set `values` or `numbers`, not both: CMDB refuses a list mixing strings and numbers.",
			Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.NoNullValues()}},
		"number": schema.NumberAttribute{Optional: true,
			MarkdownDescription: "The number of a comparison (`less`, `less_or_equal`, `greater`, `greater_or_equal`: CMDB takes nothing else) or of `equal` / `not_equal`, on any field: " +
				"CMDB's own int fields and custom int or float fields alike. A number never equals a string in CMDB: compare a numeric field with `number`.",
		},
		"numbers": schema.ListAttribute{Optional: true, ElementType: types.NumberType,
			MarkdownDescription: "The numbers of `in` and `not_in`, for a numeric field. Set `values` or `numbers`, not both.",
			Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.NoNullValues()}},
		"literal": schema.BoolAttribute{Optional: true,
			MarkdownDescription: "For the string operators: `true` escapes the regular-expression characters of `value` (`\\ . + * ? ( ) | [ ] { } ^ $`) before sending it, so it matches as written " +
				"(`begins_with` becomes a plain prefix test, `ends_with` a suffix test); `contains` still ignores case. Unset or `false`: `value` is the regular expression CMDB runs."},
	}
}

// ipv6Note says how f's IPv6 fields take values, or nothing when it has none.
func ipv6Note(f Object) string {
	if len(f.ipv6) == 0 {
		return ""
	}
	return " On " + mdList(f.ipv6) + ", which CMDB stores in full form (`2001:0db8:0000:0000:0000:0000:0000:0001`), `equal`, `not_equal`, `in` and `not_in` take IPv6 addresses in any form " +
		"(CMDB expands them; anything else is refused at plan, where CMDB would fail the listing with 1110001), and the string operators match the full form as written: a value with `::` is refused at plan."
}

// ResourceAttribute is a filter argument of a resource over the fields of f.
func ResourceAttribute(f Object) schema.SingleNestedAttribute {
	rule := cmdbTestAttributes(f)
	rule["condition"] = schema.StringAttribute{Optional: true, MarkdownDescription: "Makes this rule a group: how its `rules` combine, `AND` or `OR`.",
		Validators: []validator.String{stringvalidator.OneOf("AND", "OR")}}
	rule["rules"] = schema.ListNestedAttribute{Optional: true, MarkdownDescription: "The field tests of a group, at least one (CMDB nests at most two levels).",
		Validators:   []validator.List{listvalidator.SizeAtLeast(1)},
		NestedObject: schema.NestedAttributeObject{Attributes: cmdbTestAttributes(f), Validators: []validator.Object{cmdbRuleValidator{group: false, fields: f}}}}
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: f.object + " property filter (" + f.param + "): rules joined by `condition`. " +
			"A rule is a field test (`field`, `operator`, and `value`, `values`, `number` or `numbers`) or a group (`condition` and `rules` of field tests). " +
			"Every filter CMDB would refuse (code 1199006) fails at plan instead, and so does a `field` CMDB's " + Plural(f.name()) + " do not have " +
			"(CMDB would match it as empty and select fewer): CMDB's own fields are known, any other is looked up among the business's custom fields " +
			"(`search_object_attribute`, one call when the filter names one).",
		Attributes: map[string]schema.Attribute{
			"condition": schema.StringAttribute{Required: true, MarkdownDescription: cmdbConditionDesc, Validators: []validator.String{stringvalidator.OneOf("AND", "OR")}},
			"rules": schema.ListNestedAttribute{Required: true, MarkdownDescription: "Field tests or groups, at least one.",
				Validators:   []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: rule, Validators: []validator.Object{cmdbRuleValidator{group: true, fields: f}}}},
		},
	}
}

// DataSourceAttribute is a filter argument of a data source over the fields
// of f: ResourceAttribute in the data source's schema types.
func DataSourceAttribute(f Object) dschema.SingleNestedAttribute {
	a := ResourceAttribute(f)
	return dschema.SingleNestedAttribute{Optional: a.Optional, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators, Attributes: dataSourceAttributes(a.Attributes)}
}

// dataSourceAttribute is a, one of a filter's attributes (optional, with
// descriptions and validators) as a data source's.
func dataSourceAttribute(a schema.Attribute) dschema.Attribute {
	switch a := a.(type) {
	case schema.StringAttribute:
		return dschema.StringAttribute{Optional: a.Optional, Required: a.Required, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
	case schema.BoolAttribute:
		return dschema.BoolAttribute{Optional: a.Optional, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
	case schema.NumberAttribute:
		return dschema.NumberAttribute{Optional: a.Optional, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
	case schema.ListAttribute:
		return dschema.ListAttribute{Optional: a.Optional, ElementType: a.ElementType, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
	case schema.ListNestedAttribute:
		return dschema.ListNestedAttribute{Optional: a.Optional, Required: a.Required, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators,
			NestedObject: dschema.NestedAttributeObject{Attributes: dataSourceAttributes(a.NestedObject.Attributes), Validators: a.NestedObject.Validators}}
	}
	panic(fmt.Sprintf("cmdbfilter: no data source form of %T", a))
}

func dataSourceAttributes(as map[string]schema.Attribute) map[string]dschema.Attribute {
	out := make(map[string]dschema.Attribute, len(as))
	for k, a := range as {
		out[k] = dataSourceAttribute(a)
	}
	return out
}
