package cmdbfilter

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Model is a filter as bk-cmdb's querybuilder takes it: a group (condition
// and rules) whose rules are field tests or groups of field tests, the two
// levels CMDB allows.
type Model struct {
	Condition types.String `tfsdk:"condition"`
	Rules     []RuleModel  `tfsdk:"rules"`
}

// TestModel is a field test: field, operator, and what the operator takes.
type TestModel struct {
	Field    types.String   `tfsdk:"field"`
	Operator types.String   `tfsdk:"operator"`
	Value    types.String   `tfsdk:"value"`
	Values   []types.String `tfsdk:"values"`
	Number   types.Number   `tfsdk:"number"`
	Numbers  []types.Number `tfsdk:"numbers"`
	Literal  types.Bool     `tfsdk:"literal"`
}

// RuleModel is a field test, or a group (condition and rules of field tests).
type RuleModel struct {
	TestModel
	Condition types.String `tfsdk:"condition"`
	Rules     []TestModel  `tfsdk:"rules"`
}

// Expand is the filter as CMDB takes it, over the fields of fs (nil when unset).
func (f *Model) Expand(fs Object) *gse.HostFilter {
	if f == nil {
		return nil
	}
	out := &gse.HostFilter{Condition: f.Condition.ValueString()}
	for _, r := range f.Rules {
		if !r.Condition.IsNull() {
			g := gse.HostRule{Condition: r.Condition.ValueString()}
			for _, l := range r.Rules {
				g.Rules = append(g.Rules, l.expand(fs))
			}
			out.Rules = append(out.Rules, g)
			continue
		}
		out.Rules = append(out.Rules, r.expand(fs))
	}
	return out
}

// expand is the field test as CMDB takes it: numbers as JSON numbers, value
// escaped when literal.
func (t TestModel) expand(fs Object) gse.HostRule {
	op := t.Operator.ValueString()
	numeric := slices.Contains(fs.numeric, t.Field.ValueString()) && !slices.Contains(cmdbStringOperators, op)
	conv := func(s types.String) any {
		if n, err := strconv.ParseInt(s.ValueString(), 10, 64); numeric && err == nil {
			return n
		}
		if t.Literal.ValueBool() {
			return regexp.QuoteMeta(s.ValueString())
		}
		return s.ValueString()
	}
	r := gse.HostRule{Field: t.Field.ValueString(), Operator: op}
	switch {
	case !t.Number.IsNull():
		r.Value = jsonNumber(t.Number)
	case t.Numbers != nil:
		vs := make([]any, len(t.Numbers))
		for i, n := range t.Numbers {
			vs[i] = jsonNumber(n)
		}
		r.Value = vs
	case t.Values != nil:
		vs := make([]any, len(t.Values))
		for i, v := range t.Values {
			vs[i] = conv(v)
		}
		r.Value = vs
	default:
		r.Value = conv(t.Value)
	}
	return r
}

// jsonNumber is n exactly as written (no float64 rounding).
func jsonNumber(n types.Number) json.Number {
	return json.Number(n.ValueBigFloat().Text('g', -1))
}

// fields are the fields the filter's rules test, in order, each once.
func (f *Model) fields() []string {
	if f == nil {
		return nil
	}
	var out []string
	add := func(t TestModel) {
		if name := t.Field.ValueString(); name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for _, r := range f.Rules {
		add(r.TestModel)
		for _, t := range r.Rules {
			add(t)
		}
	}
	return out
}
