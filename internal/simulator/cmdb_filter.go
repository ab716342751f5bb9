package simulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"time"
)

// host_property_filter as bk-cmdb reads, validates and runs it: its
// querybuilder (TencentBlueKing/bk-cmdb src/common/querybuilder) parses the
// JSON tree, ListHostsParameter.Validate (src/common/metadata/hostserver.go)
// validates it, and AtomRule.ToMgo turns each rule into a MongoDB filter
// that match below evaluates as MongoDB would on the host's typed fields.

const (
	// codeCMDBParams is CCErrCommParamsInvalid (src/common/errInfo.go).
	codeCMDBParams = 1199006
	// codeCMDBUnknown is CCErrorUnknownOrUnrecognizedError (src/common/errInfo.go),
	// what rest.Contexts.RespAutoError answers for a plain error such as
	// MongoDB refusing a filter.
	codeCMDBUnknown = 1199998
	// codeCMDBJSON is CCErrCommJSONUnmarshalFailed: rest.Contexts.DecodeInto
	// answers it when QueryFilter.UnmarshalJSON (ParseRule) fails.
	codeCMDBJSON = 1199000
	// codeCMDBHostGetFail is CCErrHostGetFail, "Query Host Failed"
	// (src/common/errInfo.go): what host_server's listBizHosts
	// (src/scene_server/host_server/service/findhost.go) answers for any
	// failure of the search, the cause only in its log.
	codeCMDBHostGetFail = 1110001
	// cmdbMaxDeep is querybuilder.MaxDeep: the tree's height, an atom 1 and
	// a group one more than its highest child (CombinedRule.GetDeep).
	cmdbMaxDeep = 3
)

// cmdbOperators are querybuilder.SupportOperators; anything else, between
// included (querybuilder/README.md: 不支持 between), fails Operator.Validate.
var cmdbOperators = []string{
	"equal", "not_equal", "in", "not_in", "less", "less_or_equal", "greater", "greater_or_equal",
	"datetime_less", "datetime_less_or_equal", "datetime_greater", "datetime_greater_or_equal",
	"begins_with", "not_begins_with", "contains", "not_contains", "ends_with", "not_ends_with",
	"is_empty", "is_not_empty", "is_null", "is_not_null", "exist", "not_exist",
}

// cmdbFieldPattern is querybuilder.ValidFieldPattern.
var cmdbFieldPattern = regexp.MustCompile(`^[a-zA-Z0-9][\d\w\-_.]*$`)

// cmdbRule is a parsed rule: a group (condition set, as ParseRule decides by
// the key's presence) or an atom.
type cmdbRule struct {
	group     bool
	condition string
	rules     []*cmdbRule
	field     string
	operator  string
	value     any // as encoding/json decodes it: float64, string, bool, nil, []any, map
}

// cmdbParamsInvalid is CCErrCommParamsInvalid (1199006) with its English text
// (resources/errors/english/en/common.json), naming the key the validation
// returned.
func cmdbParamsInvalid(key string) *apiError {
	return &apiError{codeCMDBParams, fmt.Sprintf("'%s' data parameter verification does not pass", key)}
}

// parseCMDBFilter is querybuilder.ParseRuleFromBytes then the filter part
// of the request's Validate (ListHostsParameter, ListProcessRelatedInfoOption):
// QueryFilter.Validate (the root must be a group), then the height limit,
// each refusal naming the key under name. nil for a null filter.
func parseCMDBFilter(raw json.RawMessage, name string) (*cmdbRule, *apiError) {
	var data map[string]any
	if len(raw) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		return nil, &apiError{codeCMDBJSON, "Deserializing JSON data failed"}
	}
	root, err := parseCMDBRule(data)
	if err != nil {
		return nil, &apiError{codeCMDBJSON, "Deserializing JSON data failed"}
	}
	if root == nil {
		return nil, nil
	}
	if !root.group {
		return nil, cmdbParamsInvalid(name + ".") // QueryFilter.Validate: "query filter must be combined rules"
	}
	if key, bad := root.validate(); bad {
		return nil, cmdbParamsInvalid(name + "." + key)
	}
	if root.deep() > cmdbMaxDeep {
		return nil, cmdbParamsInvalid(name + ".rules")
	}
	return root, nil
}

// parseCMDBRule is querybuilder.ParseRule: "condition" makes a group,
// "operator" an atom, neither fails ("no query filter found").
func parseCMDBRule(data map[string]any) (*cmdbRule, error) {
	if data == nil {
		return nil, nil
	}
	if c, ok := data["condition"]; ok {
		cond, _ := c.(string)
		g := &cmdbRule{group: true, condition: cond}
		rules, _ := data["rules"].([]any)
		for _, item := range rules {
			m, _ := item.(map[string]any)
			r, err := parseCMDBRule(m)
			if err != nil {
				return nil, err
			}
			if r != nil {
				g.rules = append(g.rules, r)
			}
		}
		return g, nil
	}
	if _, ok := data["operator"]; ok {
		field, _ := data["field"].(string)
		op, _ := data["operator"].(string)
		return &cmdbRule{field: field, operator: op, value: data["value"]}, nil
	}
	return nil, errors.New("no query filter found")
}

// deep is CombinedRule.GetDeep / AtomRule.GetDeep.
func (r *cmdbRule) deep() int {
	if !r.group {
		return 1
	}
	most := 1
	for _, c := range r.rules {
		most = max(most, c.deep())
	}
	return most + 1
}

// validate is CombinedRule.Validate / AtomRule.Validate with
// RuleOption{NeedSameSliceElementType: true}: the key of the first refusal.
func (r *cmdbRule) validate() (string, bool) {
	if r.group {
		switch {
		case r.condition != "AND" && r.condition != "OR":
			return "condition", true
		case len(r.rules) == 0: // "combined rules shouldn't be empty"
			return "rules", true
		}
		for i, c := range r.rules {
			if key, bad := c.validate(); bad {
				return fmt.Sprintf("rules[%d].%s", i, key), true
			}
		}
		return "", false
	}
	switch {
	case !slices.Contains(cmdbOperators, r.operator):
		return "operator", true
	case !cmdbFieldPattern.MatchString(r.field):
		return "field", true
	case !r.validValue():
		return "value", true
	}
	return "", false
}

// validValue is AtomRule.validateValue (querybuilder/validate.go).
func (r *cmdbRule) validValue() bool {
	switch r.operator {
	case "equal", "not_equal":
		return cmdbType(r.value) != "unknown"
	case "in", "not_in": // validateSliceOfBasicType: nil passes; elements basic and of one type
		if r.value == nil {
			return true
		}
		list, ok := r.value.([]any)
		if !ok {
			return false
		}
		types := map[string]bool{}
		for _, v := range list {
			if cmdbType(v) == "unknown" {
				return false
			}
			types[cmdbType(v)] = true
		}
		return len(types) <= 1
	case "less", "less_or_equal", "greater", "greater_or_equal":
		return cmdbType(r.value) == "numeric"
	case "datetime_less", "datetime_less_or_equal", "datetime_greater", "datetime_greater_or_equal":
		s, ok := r.value.(string)
		return ok && cmdbDatetime(s)
	case "begins_with", "not_begins_with", "contains", "not_contains", "ends_with", "not_ends_with":
		s, ok := r.value.(string)
		return ok && s != ""
	}
	return true // is_empty, is_null, exist and their negations take no value
}

// cmdbType is querybuilder's getType.
func cmdbType(v any) string {
	switch v.(type) {
	case float64:
		return "numeric"
	case bool:
		return "boolean"
	case string:
		return "string"
	}
	return "unknown"
}

// cmdbDatetime approximates validateDatetimeStringType: util.IsTime's
// layouts or a 2006-01-02 date.
func cmdbDatetime(s string) bool {
	for _, layout := range []string{time.RFC3339, time.DateTime, time.DateOnly} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// cmdbIPv6Fields are the host fields bk-cmdb stores as full-form IPv6
// addresses (common.ConvertHostIpv6Val on every write).
var cmdbIPv6Fields = []string{"bk_host_innerip_v6", "bk_host_outerip_v6"}

// expandIPv6 is what AtomRule.ToMgo does to the values of equal, not_equal,
// in and not_in on an IPv6 field (common.ConvertIpv6ToFullWord): each becomes
// the full form the field is stored in; one that is not an address fails
// the search. Other operators pass their value as it is.
func (r *cmdbRule) expandIPv6() error {
	if r.group {
		for _, c := range r.rules {
			if err := c.expandIPv6(); err != nil {
				return err
			}
		}
		return nil
	}
	if !slices.Contains(cmdbIPv6Fields, r.field) {
		return nil
	}
	full := func(v any) (any, error) {
		s, _ := v.(string)
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is6() {
			return nil, fmt.Errorf("convert ipv6 full word failed, err: address %v is invalid", v)
		}
		return a.StringExpanded(), nil
	}
	var err error
	switch r.operator {
	case "equal", "not_equal":
		r.value, err = full(r.value)
	case "in", "not_in":
		list, _ := r.value.([]any)
		for i := range list {
			if list[i], err = full(list[i]); err != nil {
				break
			}
		}
	}
	return err
}

// match evaluates the MongoDB filter AtomRule.ToMgo / CombinedRule.ToMgo
// build. Comparisons are typed as in MongoDB: a number never equals a
// string, $lt and the like compare numbers with numbers only, and $regex
// matches strings only (so its $not matches every non-string).
//
// field looks a field of the host up: its value, and whether it has the field.
func (r *cmdbRule) match(field func(string) (any, bool)) (bool, *apiError) {
	if r.group {
		for _, c := range r.rules {
			ok, err := c.match(field)
			if err != nil || ok == (r.condition == "OR") {
				return ok, err
			}
		}
		return r.condition == "AND", nil
	}
	got, exists := field(r.field)
	if elems, ok := arrayElements(r.field, got); ok {
		return r.matchAny(elems)
	}
	switch r.operator {
	case "equal":
		return mongoEqual(got, r.value), nil
	case "not_equal":
		return !mongoEqual(got, r.value), nil
	case "in", "not_in":
		list, ok := r.value.([]any)
		if !ok {
			return false, &apiError{codeCMDBUnknown, "(BadValue) $in needs an array"}
		}
		in := slices.ContainsFunc(list, func(v any) bool { return mongoEqual(got, v) })
		return in == (r.operator == "in"), nil
	case "less", "less_or_equal", "greater", "greater_or_equal":
		g, ok := number(got)
		if !ok {
			return false, nil
		}
		w, _ := r.value.(float64) // validated: a number
		return map[string]bool{"less": g < w, "less_or_equal": g <= w, "greater": g > w, "greater_or_equal": g >= w}[r.operator], nil
	case "begins_with", "not_begins_with", "contains", "not_contains", "ends_with", "not_ends_with":
		return r.matchRegex(got)
	case "exist", "is_not_null":
		return exists && got != nil, nil
	case "not_exist", "is_null":
		return !exists || got == nil, nil
	case "is_not_empty":
		return true, nil // no host field is an array: $ne [] holds
	}
	return false, nil // is_empty; datetime_*: no host field is a date
}

// cmdbArrayFields are the host fields CMDB stores as arrays of addresses
// (metadata.ConvertHostSpecialStringToArray), returned joined by commas.
var cmdbArrayFields = []string{"bk_host_innerip", "bk_host_innerip_v6", "bk_host_outerip", "bk_host_outerip_v6"}

// arrayElements is an array field's stored elements.
func arrayElements(field string, got any) ([]any, bool) {
	s, ok := got.(string)
	if !ok || !slices.Contains(cmdbArrayFields, field) {
		return nil, false
	}
	var out []any
	for _, e := range strings.Split(s, ",") {
		if e != "" {
			out = append(out, e)
		}
	}
	return out, true
}

// matchAny is a rule on an array field as MongoDB runs it: a positive test
// holds when an element passes it, its not_ form when none does.
func (r *cmdbRule) matchAny(elems []any) (bool, *apiError) {
	positive := *r
	negate := strings.HasPrefix(r.operator, "not_")
	positive.operator, positive.field = strings.TrimPrefix(r.operator, "not_"), "" // each element is a scalar
	for _, e := range elems {
		ok, err := positive.match(func(string) (any, bool) { return e, true })
		if err != nil || ok {
			return ok != negate, err
		}
	}
	return negate, nil
}

// matchRegex is ToMgo's $regex: "^v" (begins_with), "v$" (ends_with) or v
// (contains, the only one with $options "i"), v unescaped; the not_ forms
// wrap it in $not. MongoDB runs PCRE, the simulator Go's RE2: the same for
// the patterns users write (escapes, classes, anchors, alternation).
func (r *cmdbRule) matchRegex(got any) (bool, *apiError) {
	v, _ := r.value.(string) // validated: a non-empty string
	base, negate := r.operator, false
	if len(base) > 4 && base[:4] == "not_" {
		base, negate = base[4:], true
	}
	pattern := map[string]string{"begins_with": "^" + v, "ends_with": v + "$", "contains": v}[base]
	if r.operator == "contains" {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return false, &apiError{codeCMDBUnknown, "(BadValue) Regular expression is invalid: " + err.Error()}
	}
	s, isString := got.(string)
	return (isString && re.MatchString(s)) != negate, nil
}

// mongoEqual is $eq between a host field and a filter value: numbers by
// value, strings and booleans by value, never across types.
func mongoEqual(got, want any) bool {
	if g, ok := number(got); ok {
		w, isNum := want.(float64)
		return isNum && g == w
	}
	return got == want
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
