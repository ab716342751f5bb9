package provider

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// The filter of gse_cmdb_hosts mirrors list_biz_hosts' host_property_filter:
// a group (condition and rules) whose rules are field tests or groups of
// field tests, the two levels CMDB allows.

// cmdbOperators are the rule operators of CMDB's query builder that take a value.
var cmdbOperators = []string{
	"equal", "not_equal", "in", "not_in", "less", "less_or_equal", "greater", "greater_or_equal",
	"contains", "not_contains", "begins_with", "not_begins_with", "ends_with", "not_ends_with",
}

// cmdbListOperators take values (a list) instead of value.
var cmdbListOperators = []string{"in", "not_in"}

// cmdbNumericFields are host fields CMDB stores as numbers: their values are sent as JSON numbers.
var cmdbNumericFields = []string{"bk_host_id", "bk_cloud_id", "bk_cpu", "bk_cpu_mhz", "bk_mem", "bk_disk"}

type cmdbFilterModel struct {
	Condition types.String    `tfsdk:"condition"`
	Rules     []cmdbRuleModel `tfsdk:"rules"`
}

// cmdbTestModel is a field test: field, operator, and value or values.
type cmdbTestModel struct {
	Field    types.String   `tfsdk:"field"`
	Operator types.String   `tfsdk:"operator"`
	Value    types.String   `tfsdk:"value"`
	Values   []types.String `tfsdk:"values"`
}

// cmdbRuleModel is a field test, or a group (condition and rules of field tests).
type cmdbRuleModel struct {
	cmdbTestModel
	Condition types.String    `tfsdk:"condition"`
	Rules     []cmdbTestModel `tfsdk:"rules"`
}

const cmdbConditionDesc = "How the rules combine: `AND` or `OR`."

// cmdbTestAttributes are the attributes of a field test.
func cmdbTestAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"field": schema.StringAttribute{Optional: true, MarkdownDescription: "Host field to test, such as `bk_host_name`, `bk_os_type`, `bk_cloud_id` or `bk_host_innerip`."},
		"operator": schema.StringAttribute{Optional: true, MarkdownDescription: "One of `" + strings.Join(cmdbOperators, "`, `") + "`.",
			Validators: []validator.String{stringvalidator.OneOf(cmdbOperators...)}},
		"value": schema.StringAttribute{Optional: true, MarkdownDescription: "Value of every operator but `in` and `not_in`. Sent as a number for the numeric fields `" +
			strings.Join(cmdbNumericFields, "`, `") + "`, else as a string."},
		"values": schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Values of `in` and `not_in` (converted as `value`).",
			Validators: []validator.List{listvalidator.SizeAtLeast(1)}},
	}
}

// cmdbFilterAttribute is the filter argument.
func cmdbFilterAttribute() schema.SingleNestedAttribute {
	rule := cmdbTestAttributes()
	rule["condition"] = schema.StringAttribute{Optional: true, MarkdownDescription: "Makes this rule a group: how its `rules` combine, `AND` or `OR`.",
		Validators: []validator.String{stringvalidator.OneOf("AND", "OR")}}
	rule["rules"] = schema.ListNestedAttribute{Optional: true, MarkdownDescription: "The field tests of a group (CMDB nests at most two levels).",
		NestedObject: schema.NestedAttributeObject{Attributes: cmdbTestAttributes(), Validators: []validator.Object{cmdbRuleValidator{group: false}}}}
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Host property filter (`host_property_filter` of `list_biz_hosts`): rules joined by `condition`. " +
			"A rule is a field test (`field`, `operator`, and `value` or `values`) or a group (`condition` and `rules` of field tests).",
		Attributes: map[string]schema.Attribute{
			"condition": schema.StringAttribute{Required: true, MarkdownDescription: cmdbConditionDesc, Validators: []validator.String{stringvalidator.OneOf("AND", "OR")}},
			"rules": schema.ListNestedAttribute{Required: true, MarkdownDescription: "Field tests or groups, at least one.",
				Validators:   []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: rule, Validators: []validator.Object{cmdbRuleValidator{group: true}}}},
		},
	}
}

// cmdbRuleValidator checks that a rule is a field test with the value its
// operator takes, or (group) a group with rules and nothing of a test.
type cmdbRuleValidator struct{ group bool }

func (v cmdbRuleValidator) Description(context.Context) string {
	d := "a field test: field, operator, and value (values for in and not_in)"
	if v.group {
		d += "; or a group: condition and rules"
	}
	return d
}
func (v cmdbRuleValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v cmdbRuleValidator) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	a := req.ConfigValue.Attributes()
	set := func(name string) bool { v, ok := a[name]; return ok && !v.IsNull() }
	known := func(name string) bool { v, ok := a[name]; return !ok || !v.IsUnknown() }
	if !known("condition") || !known("operator") {
		return
	}
	p := req.Path.String()
	if set("condition") {
		switch {
		case set("field") || set("operator") || set("value") || set("values"):
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid filter rule", p+" sets condition and a field test: a rule is a group (condition and rules) or a field test (field, operator, value or values), not both.")
		case !set("rules"):
			resp.Diagnostics.AddAttributeError(req.Path.AtName("rules"), "Invalid filter rule", p+" is a group (condition is set) without rules: add rules, each a field test.")
		}
		return
	}
	if set("rules") {
		resp.Diagnostics.AddAttributeError(req.Path.AtName("condition"), "Invalid filter rule", p+" has rules but no condition: set condition to AND or OR.")
		return
	}
	if !set("field") || !set("operator") {
		what := "a field test needs field and operator (one of " + strings.Join(cmdbOperators, ", ") + ")"
		if v.group {
			what += ", or the rule is a group of condition and rules"
		}
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid filter rule", p+": "+what+".")
		return
	}
	opV, _ := a["operator"].(types.String)
	op := opV.ValueString()
	if slices.Contains(cmdbListOperators, op) {
		if set("value") || !set("values") {
			resp.Diagnostics.AddAttributeError(req.Path.AtName("values"), "Invalid filter rule", fmt.Sprintf("%s: operator %s takes values (a list), not value.", p, op))
		}
	} else if set("values") || !set("value") {
		resp.Diagnostics.AddAttributeError(req.Path.AtName("value"), "Invalid filter rule", fmt.Sprintf("%s: operator %s takes value, not values (only in and not_in take a list).", p, op))
	}
	checkNumericValue(a, req, resp)
}

// checkNumericValue checks that the values of a numeric field are integers.
func checkNumericValue(a map[string]attr.Value, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	field, _ := a["field"].(types.String)
	if !slices.Contains(cmdbNumericFields, field.ValueString()) {
		return
	}
	var vals []attr.Value
	if v, _ := a["value"].(types.String); !v.IsNull() {
		vals = append(vals, v)
	}
	if l, _ := a["values"].(types.List); !l.IsNull() && !l.IsUnknown() {
		vals = append(vals, l.Elements()...)
	}
	for _, v := range vals {
		s, _ := v.(types.String)
		if s.IsUnknown() {
			continue
		}
		if _, err := strconv.ParseInt(s.ValueString(), 10, 64); err != nil {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid filter value",
				fmt.Sprintf("%s: %s is a numeric field, and %q is not an integer.", req.Path, field.ValueString(), s.ValueString()))
		}
	}
}

// api is the filter as list_biz_hosts takes it (nil when unset).
func (f *cmdbFilterModel) api() *gse.HostFilter {
	if f == nil {
		return nil
	}
	out := &gse.HostFilter{Condition: f.Condition.ValueString()}
	for _, r := range f.Rules {
		if !r.Condition.IsNull() {
			g := gse.HostRule{Condition: r.Condition.ValueString()}
			for _, l := range r.Rules {
				g.Rules = append(g.Rules, l.api())
			}
			out.Rules = append(out.Rules, g)
			continue
		}
		out.Rules = append(out.Rules, r.api())
	}
	return out
}

// api is the field test, its values typed as the field is.
func (t cmdbTestModel) api() gse.HostRule {
	numeric := slices.Contains(cmdbNumericFields, t.Field.ValueString())
	conv := func(s types.String) any {
		if n, err := strconv.ParseInt(s.ValueString(), 10, 64); numeric && err == nil {
			return n
		}
		return s.ValueString()
	}
	r := gse.HostRule{Field: t.Field.ValueString(), Operator: t.Operator.ValueString()}
	if t.Values == nil {
		r.Value = conv(t.Value)
		return r
	}
	vs := make([]any, len(t.Values))
	for i, v := range t.Values {
		vs[i] = conv(v)
	}
	r.Value = vs
	return r
}
