package plumbing

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// StringCheck turns a check of a known string into a plan-time validator.
type StringCheck struct {
	Desc  string
	Check func(string) error
}

func (v StringCheck) Description(context.Context) string         { return v.Desc }
func (v StringCheck) MarkdownDescription(context.Context) string { return v.Desc }

func (v StringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := v.Check(req.ConfigValue.ValueString()); err != nil {
		name := attrName(req.Path)
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+name,
			fmt.Sprintf("%s %s, got %q.", name, err, req.ConfigValue.ValueString()))
	}
}

// attrName names an attribute for a message: its path, or inside a set (whose
// elements print as whole values) its own name.
func attrName(p path.Path) string {
	s := p.String()
	if strings.Contains(s, "[Value(") {
		if last, _ := p.Steps().LastStep(); last != nil {
			return last.String()
		}
	}
	return s
}

// StringRule is a requirement on a string that a schema checks (Validator)
// and that values reaching no schema are held to as well (Holds), with the
// same words: a CMDB value gse_cmdb_processes would hand to
// gse_managed_process is checked against the rule that would refuse it.
type StringRule struct {
	re *regexp.Regexp
	// Requires is what the rule requires, as messages say it.
	Requires string
	// schema is the framework's own validator of the rule, when it has one.
	schema validator.String
}

// Holds says whether s meets the rule.
func (r StringRule) Holds(s string) bool { return r.re.MatchString(s) }

// Validator checks a string attribute against the rule.
func (r StringRule) Validator() validator.String {
	if r.schema != nil {
		return r.schema
	}
	return stringvalidator.RegexMatches(r.re, r.Requires)
}

var (
	// AbsolutePathRule is an absolute path, Unix or Windows.
	AbsolutePathRule = StringRule{re: regexp.MustCompile(`^(/|[A-Za-z]:[\\/])`), Requires: `must be an absolute path, such as /data/app or C:\app`}
	// MetaNameRule is a namespace or name of a GSE process: GSE joins names
	// into result keys with ':', and import IDs use '/', '@' and ','.
	MetaNameRule = StringRule{re: MetaNameRE, Requires: "must be non-empty and hold none of ':', '/', '@', ',' or whitespace"}
	// NonEmptyRule is a string of at least one character.
	NonEmptyRule = StringRule{re: regexp.MustCompile(`(?s).`), Requires: "string length must be at least 1", schema: stringvalidator.LengthAtLeast(1)}
)

// MetaNameRE is MetaNameRule's pattern, for what parses names (import IDs).
var MetaNameRE = regexp.MustCompile(`^[^:/@,\s]+$`)

// AbsolutePath requires an absolute path, such as /data/app or C:\app (AbsolutePathRule).
func AbsolutePath() validator.String { return AbsolutePathRule.Validator() }

// MetaName checks a namespace or name of a GSE process (MetaNameRule).
func MetaName() validator.String { return MetaNameRule.Validator() }

// Duration requires a positive Go duration with its unit, such as 30s.
func Duration() validator.String {
	return StringCheck{Desc: "must be a positive Go duration such as 30s", Check: func(s string) error {
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return fmt.Errorf("must be a duration with a unit, such as %ss or %sm", s, s)
		}
		if d, err := time.ParseDuration(s); err != nil || d <= 0 {
			return fmt.Errorf("must be a positive duration such as 30s, 90s or 2m")
		}
		return nil
	}}
}

// numberRange checks an Int64 or Float64 attribute against min to max
// (max +Inf: no upper bound), in the numbers a user writes: the framework's
// own validators print 0.000000 and say "value" where this names the attribute.
type numberRange struct{ min, max float64 }

// ZeroTo accepts 0 to hi inclusive; ZeroOrMore 0 or more.
func ZeroTo(hi float64) numberRange { return numberRange{0, hi} }
func ZeroOrMore() numberRange       { return numberRange{0, math.Inf(1)} }

func (v numberRange) Description(context.Context) string {
	if math.IsInf(v.max, 1) {
		return "must be " + numText(v.min) + " or more"
	}
	return "must be " + numText(v.min) + " to " + numText(v.max)
}
func (v numberRange) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v numberRange) ValidateInt64(ctx context.Context, req validator.Int64Request, resp *validator.Int64Response) {
	if !req.ConfigValue.IsNull() && !req.ConfigValue.IsUnknown() {
		v.check(ctx, req.Path, float64(req.ConfigValue.ValueInt64()), &resp.Diagnostics)
	}
}

func (v numberRange) ValidateFloat64(ctx context.Context, req validator.Float64Request, resp *validator.Float64Response) {
	if !req.ConfigValue.IsNull() && !req.ConfigValue.IsUnknown() {
		v.check(ctx, req.Path, req.ConfigValue.ValueFloat64(), &resp.Diagnostics)
	}
}

func (v numberRange) check(ctx context.Context, p path.Path, x float64, diags *diag.Diagnostics) {
	if x < v.min || x > v.max {
		name := attrName(p)
		diags.AddAttributeError(p, "Invalid "+name, fmt.Sprintf("%s %s, got %s.", name, v.Description(ctx), numText(x)))
	}
}

// numText is a number as a user writes it: 100, 0.5.
func numText(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// NamedInts checks that an Int64 attribute is one of 0 to len-1, the names
// saying what each means: "must be 0 (periodic), 1 (resident) or 2 (one-shot)".
type NamedInts []string

func (v NamedInts) Description(context.Context) string {
	parts := make([]string, len(v))
	for i, name := range v {
		parts[i] = fmt.Sprintf("%d (%s)", i, name)
	}
	return "must be " + strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
func (v NamedInts) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v NamedInts) ValidateInt64(ctx context.Context, req validator.Int64Request, resp *validator.Int64Response) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if x := req.ConfigValue.ValueInt64(); x < 0 || x >= int64(len(v)) {
		name := attrName(req.Path)
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+name, fmt.Sprintf("%s %s, got %d.", name, v.Description(ctx), x))
	}
}
