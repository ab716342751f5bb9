package cmdbfilter

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The rules of a filter as bk-cmdb's query builder
// (src/common/querybuilder) checks them: every rule it would refuse with
// 1199006 fails at plan, naming the attribute and what it takes.

// cmdbOperators are the rule operators of CMDB's query builder that take a
// value, grouped by what they take (querybuilder AtomRule.validateValue).
var (
	cmdbListOperators    = []string{"in", "not_in"}
	cmdbEqualOperators   = []string{"equal", "not_equal"}
	cmdbCompareOperators = []string{"less", "less_or_equal", "greater", "greater_or_equal"}
	cmdbStringOperators  = []string{"contains", "not_contains", "begins_with", "not_begins_with", "ends_with", "not_ends_with"}
	cmdbOperators        = slices.Concat(cmdbEqualOperators, cmdbListOperators, cmdbCompareOperators, cmdbStringOperators)
)

// cmdbFieldPattern is the field ids CMDB's query builder accepts (ValidFieldPattern).
var cmdbFieldPattern = regexp.MustCompile(`^[a-zA-Z0-9][\w\-.]*$`)

// cmdbValueAttrs are a field test's value attributes, in the order errors name them.
var cmdbValueAttrs = []string{"value", "values", "number", "numbers"}

// cmdbTakes is what an operator takes: the value attributes it accepts and
// how to say so.
func cmdbTakes(op string, f Object) (attrs []string, say string) {
	switch {
	case slices.Contains(cmdbListOperators, op):
		return []string{"values", "numbers"}, "values (strings) or numbers, a list"
	case slices.Contains(cmdbEqualOperators, op):
		return []string{"value", "number"}, "value (a string) or number"
	case slices.Contains(cmdbCompareOperators, op):
		return []string{"number", "value"}, "number (CMDB compares numbers only; value only on " + strings.Join(f.numeric, ", ") + ")"
	}
	return []string{"value"}, "value, a non-empty string (a regular expression)"
}

// cmdbOperatorValidator is OneOf(cmdbOperators), with advice for between,
// which CMDB documents but its query builder refuses.
type cmdbOperatorValidator struct{}

func (cmdbOperatorValidator) Description(ctx context.Context) string {
	return stringvalidator.OneOf(cmdbOperators...).Description(ctx)
}
func (v cmdbOperatorValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (cmdbOperatorValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if op := req.ConfigValue.ValueString(); op == "between" || op == "not_between" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid filter operator",
			fmt.Sprintf("%s: CMDB's query builder does not support %s (it answers 1199006): put greater_or_equal and less_or_equal rules in a group with condition AND (OR with less and greater for not_between).", req.Path, op))
		return
	}
	stringvalidator.OneOf(cmdbOperators...).ValidateString(ctx, req, resp)
}

// cmdbRuleValidator checks that a rule is a field test with what its
// operator takes, or (group) a group with rules and nothing of a test.
type cmdbRuleValidator struct {
	group  bool
	fields Object
}

func (v cmdbRuleValidator) Description(context.Context) string {
	d := "a field test: field, operator, and value, values, number or numbers as the operator takes"
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
	a := ruleAttrs(req.ConfigValue.Attributes())
	if !a.known("condition") || !a.known("operator") {
		return
	}
	if !v.checkShape(a, req, resp) {
		return
	}
	opV, _ := a["operator"].(types.String)
	op := opV.ValueString()
	if !slices.Contains(cmdbOperators, op) {
		return // the operator's own validator says so
	}
	checkTakes(req, resp, op, a.set, v.fields)
	if resp.Diagnostics.HasError() {
		return
	}
	v.checkValues(a, op, req, resp)
}

// ruleAttrs are the attributes of a rule as its validator reads them.
type ruleAttrs map[string]attr.Value

// set says whether the rule sets name (unknown counts as set).
func (a ruleAttrs) set(name string) bool { v, ok := a[name]; return ok && !v.IsNull() }

// known says whether name's value is known (or not an attribute of the rule).
func (a ruleAttrs) known(name string) bool { v, ok := a[name]; return !ok || !v.IsUnknown() }

// checkShape checks that the rule is a group (condition and rules) or a
// field test (field and operator), not both nor neither; it says whether
// the rule is a field test to check further.
func (v cmdbRuleValidator) checkShape(a ruleAttrs, req validator.ObjectRequest, resp *validator.ObjectResponse) bool {
	p := req.Path.String()
	test := slices.ContainsFunc(append([]string{"field", "operator", "literal"}, cmdbValueAttrs...), a.set)
	if a.set("condition") {
		switch {
		case test:
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid filter rule", p+" sets condition and a field test: a rule is a group (condition and rules) or a field test (field, operator, and value, values, number or numbers), not both.")
		case !a.set("rules"):
			resp.Diagnostics.AddAttributeError(req.Path.AtName("rules"), "Invalid filter rule", p+" is a group (condition is set) without rules: add rules, each a field test (CMDB refuses an empty group).")
		}
		return false
	}
	if a.set("rules") {
		resp.Diagnostics.AddAttributeError(req.Path.AtName("condition"), "Invalid filter rule", p+" has rules but no condition: set condition to AND or OR.")
		return false
	}
	if !a.set("field") || !a.set("operator") {
		what := "a field test needs field and operator (one of " + strings.Join(cmdbOperators, ", ") + ")"
		if v.group {
			what += ", or the rule is a group of condition and rules"
		} else {
			what += "; a group cannot hold groups (CMDB refuses a tree deeper than 3)"
		}
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid filter rule", p+": "+what+".")
		return false
	}
	return true
}

// checkValues checks a field test's values against its operator op and
// field: literal, an empty or numeric string operator's value, a
// comparison's value, numeric and IPv6 fields' values.
func (v cmdbRuleValidator) checkValues(a ruleAttrs, op string, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	field, _ := a["field"].(types.String)
	if a.set("literal") && !slices.Contains(cmdbStringOperators, op) {
		resp.Diagnostics.AddAttributeError(req.Path.AtName("literal"), "Invalid filter rule",
			fmt.Sprintf("%s: literal applies to the string operators (%s) only, not %s.", req.Path.AtName("literal"), strings.Join(cmdbStringOperators, ", "), op))
	}
	value, _ := a["value"].(types.String)
	numericField := slices.Contains(v.fields.numeric, field.ValueString())
	switch {
	case slices.Contains(cmdbStringOperators, op):
		if !value.IsUnknown() && value.ValueString() == "" {
			resp.Diagnostics.AddAttributeError(req.Path.AtName("value"), "Invalid filter value",
				fmt.Sprintf("%s: operator %s takes a non-empty string, and CMDB refuses an empty one (1199006).", req.Path.AtName("value"), op))
		}
		if numericField && !field.IsUnknown() {
			resp.Diagnostics.AddAttributeWarning(req.Path.AtName("field"), "Filter matches by string on a numeric field",
				fmt.Sprintf("%s: %s holds numbers, and %s matches strings only: it matches no %s (a not_ form matches every %s). Use equal, in or a comparison with number.", req.Path.AtName("field"), field.ValueString(), op, v.fields.name(), v.fields.name()))
		}
	case slices.Contains(cmdbCompareOperators, op) && a.set("value") && !field.IsUnknown() && !numericField:
		resp.Diagnostics.AddAttributeError(req.Path.AtName("value"), "Invalid filter value",
			fmt.Sprintf("%s: operator %s compares numbers, and value is sent as a string, which CMDB refuses (1199006): set number instead (for example number = %s).", req.Path.AtName("value"), op, cmdbNumberHint(value)))
	case numericField:
		checkNumericValue(a, req, resp)
	}
	if slices.Contains(v.fields.ipv6, field.ValueString()) {
		checkIPv6Value(a, op, req, resp)
	}
}

// checkIPv6Value checks the values of a rule on an IPv6 field as bk-cmdb
// reads them (src/common/querybuilder AtomRule.ToMgo): equal, not_equal, in
// and not_in values are addresses it expands to full form, and an invalid
// one fails the whole listing with 1110001 "Query Host Failed", naming
// nothing; the string operators match the stored full form as given, so a
// value in short form ("::") never matches.
func checkIPv6Value(a map[string]attr.Value, op string, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	field, _ := a["field"].(types.String)
	var vals []types.String
	if v, _ := a["value"].(types.String); !v.IsNull() && !v.IsUnknown() {
		vals = append(vals, v)
	}
	if l, _ := a["values"].(types.List); !l.IsNull() && !l.IsUnknown() {
		for _, e := range l.Elements() {
			if s, _ := e.(types.String); !s.IsNull() && !s.IsUnknown() {
				vals = append(vals, s)
			}
		}
	}
	for _, v := range vals {
		s := v.ValueString()
		switch {
		case slices.Contains(cmdbStringOperators, op):
			if strings.Contains(s, "::") {
				resp.Diagnostics.AddAttributeError(req.Path, "Invalid filter value",
					fmt.Sprintf("%s: CMDB stores %s in full form (2001:0db8:0000:0000:0000:0000:0000:0001) and %s matches it as written, so %q, in short form, matches no host: write the full form, or use equal or in with the address, which CMDB expands.",
						req.Path, field.ValueString(), op, s))
			}
		default:
			if addr, err := netip.ParseAddr(s); err != nil || !addr.Is6() || addr.Zone() != "" {
				resp.Diagnostics.AddAttributeError(req.Path, "Invalid filter value",
					fmt.Sprintf("%s: %q is not an IPv6 address, which %s %s takes: CMDB would fail the whole listing with 1110001 \"Query Host Failed\", naming nothing.",
						req.Path, s, field.ValueString(), op))
			}
		}
	}
}

// checkTakes checks that the rule sets exactly one of the value attributes
// its operator takes, and none it does not.
func checkTakes(req validator.ObjectRequest, resp *validator.ObjectResponse, op string, set func(string) bool, f Object) {
	p := req.Path.String()
	takes, say := cmdbTakes(op, f)
	for _, name := range cmdbValueAttrs {
		if set(name) && !slices.Contains(takes, name) {
			resp.Diagnostics.AddAttributeError(req.Path.AtName(name), "Invalid filter rule",
				fmt.Sprintf("%s: operator %s takes %s, not %s.", req.Path.AtName(name), op, say, name))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	var given []string
	for _, name := range takes {
		if set(name) {
			given = append(given, name)
		}
	}
	switch {
	case len(given) == 0:
		resp.Diagnostics.AddAttributeError(req.Path.AtName(takes[0]), "Invalid filter rule", fmt.Sprintf("%s: operator %s takes %s: set it.", p, op, say))
	case len(given) == 2 && given[0] == "values":
		resp.Diagnostics.AddAttributeError(req.Path.AtName("numbers"), "Invalid filter rule",
			fmt.Sprintf("%s: values and numbers together make a list mixing strings and numbers, which CMDB refuses (1199006): set one of them.", req.Path.AtName("numbers")))
	case len(given) == 2:
		resp.Diagnostics.AddAttributeError(req.Path.AtName(given[1]), "Invalid filter rule", fmt.Sprintf("%s: set %s or %s, not both.", req.Path.AtName(given[1]), given[0], given[1]))
	}
}

// cmdbNumberHint is value as a number literal where it reads as one.
func cmdbNumberHint(v types.String) string {
	if _, err := strconv.ParseFloat(v.ValueString(), 64); err == nil {
		return v.ValueString()
	}
	return "3"
}

// checkNumericValue checks that value and values on a numeric field are integers.
func checkNumericValue(a map[string]attr.Value, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	field, _ := a["field"].(types.String)
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
				fmt.Sprintf("%s: %s is a numeric field, and %q is not an integer: use number or numbers for other numbers.", req.Path, field.ValueString(), s.ValueString()))
		}
	}
}
