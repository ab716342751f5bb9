package cmdb

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/cmdbfilter"
)

// A typo in a selector must not shrink a selection unnoticed: each value of
// a named selector (bk_set_ids, bk_module_ids, service_instance_ids,
// process_names) is judged against what the business has, not against
// what the other selectors leave, and one that matches nothing fails the
// read, as does a selection with nothing in it; allow_empty = true makes
// both warnings.

// selector is a named selector as the configuration sets it.
type selector struct {
	attr   string  // its attribute: bk_set_ids, ...
	what   string  // what it names: "set", "module", ...
	ids    []int64 // its ids; nil for process_names
	values []string
}

// idSelector is the selector attr over ids (nil when unset).
func idSelector(attr, what string, ids []types.Int64) *selector {
	if len(ids) == 0 {
		return nil
	}
	s := &selector{attr: attr, what: what, ids: int64s(ids), values: make([]string, len(ids))}
	for i, id := range s.ids {
		s.values[i] = strconv.FormatInt(id, 10)
	}
	return s
}

// nameSelector is process_names as a selector (nil when unset).
func nameSelector(names []types.String) *selector {
	if len(names) == 0 {
		return nil
	}
	s := &selector{attr: "process_names", what: "process name"}
	for _, n := range names {
		s.values = append(s.values, n.ValueString())
	}
	return s
}

// show is value v as the error names it.
func (s *selector) show(v string) string {
	if s.ids == nil {
		return strconv.Quote(v)
	}
	return v
}

// rowValue is what row r holds for s.
func (s *selector) rowValue(r gse.ProcessRow) string {
	switch s.attr {
	case "bk_set_ids":
		return strconv.FormatInt(r.Set.ID, 10)
	case "bk_module_ids":
		return strconv.FormatInt(r.Module.ID, 10)
	case "service_instance_ids":
		return strconv.FormatInt(r.ServiceInstance.ID, 10)
	}
	return r.Process.Name
}

// absent are the values of s among values that no row holds.
func (s *selector) absent(rows []gse.ProcessRow, values []string) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		seen[s.rowValue(r)] = true
	}
	return slices.DeleteFunc(slices.Clone(values), func(v string) bool { return seen[v] })
}

// idsOf are values of s as ids.
func idsOf(values []string) []int64 {
	ids := make([]int64, len(values))
	for i, v := range values {
		ids[i], _ = strconv.ParseInt(v, 10, 64)
	}
	return ids
}

// topoRead is the call that says which ids of s are sets (find_set_batch)
// or modules (find_module_batch) of a business; nil for other selectors.
func (s *selector) topoRead(c *gse.Client) func(ctx context.Context, biz int64, ids []int64) (map[int64]bool, error) {
	switch s.attr {
	case "bk_set_ids":
		return c.CMDB.BizSets
	case "bk_module_ids":
		return c.CMDB.BizModules
	}
	return nil
}

// alone is the query of business biz selecting values of s and nothing else.
func (s *selector) alone(biz int64, values []string) gse.ProcessQuery {
	q := gse.ProcessQuery{BizID: biz}
	ids := idsOf(values)
	switch s.attr {
	case "bk_set_ids":
		q.SetIDs = ids
	case "bk_module_ids":
		q.ModuleIDs = ids
	case "service_instance_ids":
		q.ServiceInstanceIDs = ids
	default:
		vs := make([]any, len(values))
		for i, v := range values {
			vs[i] = v
		}
		q.Filter = &gse.HostFilter{Condition: "AND", Rules: []gse.HostRule{{Field: "bk_process_name", Operator: "in", Value: vs}}}
	}
	return q
}

// unmatched is a value of a selector that matches nothing, and why.
type unmatched struct {
	s      *selector
	value  string
	reason string
}

// processSelectors are m's named selectors that are set.
func processSelectors(m *cmdbProcessesModel) []*selector {
	all := []*selector{
		idSelector("bk_set_ids", "set", m.BkSetIDs), idSelector("bk_module_ids", "module", m.BkModuleIDs),
		idSelector("service_instance_ids", "service instance", m.ServiceInstanceIDs), nameSelector(m.ProcessNames),
	}
	return slices.DeleteFunc(all, func(s *selector) bool { return s == nil })
}

// unmatchedProcessSelectors are the values of m's selectors that select no
// process of business biz. rows are what list_process_related_info
// answered for the whole selection: a value a row holds matches. When
// nothing else narrowed the listing (one selector, no filter), the others
// match nothing; else one more listing per selector, of its absent values
// alone, tells which of them the business has processes for.
func unmatchedProcessSelectors(ctx context.Context, c *gse.Client, biz int64, m *cmdbProcessesModel, rows []gse.ProcessRow) ([]unmatched, error) {
	sels := processSelectors(m)
	alone := len(sels) == 1 && m.Filter == nil
	var out []unmatched
	for _, s := range sels {
		absent := s.absent(rows, s.values)
		if len(absent) > 0 && !alone {
			found, err := c.CMDB.ListProcessRelatedInfo(ctx, s.alone(biz, absent))
			if err != nil {
				return nil, err
			}
			absent = s.absent(found, absent)
		}
		why, err := s.whyNoProcess(ctx, c, biz, absent)
		if err != nil {
			return nil, err
		}
		for _, v := range absent {
			out = append(out, unmatched{s, v, why(v)})
		}
	}
	return out, nil
}

// whyNoProcess says why each of values of s selects no process of business
// biz: for a set or module, whether it is one of the business's (one
// find_set_batch or find_module_batch call, made only for values that
// fail).
func (s *selector) whyNoProcess(ctx context.Context, c *gse.Client, biz int64, values []string) (func(string) string, error) {
	read := s.topoRead(c)
	switch {
	case s.ids == nil:
		return func(v string) string {
			return fmt.Sprintf("no process of business %d has the bk_process_name %q", biz, v)
		}, nil
	case read == nil || len(values) == 0:
		return func(v string) string { return fmt.Sprintf("no process of business %d is in %s %s", biz, s.what, v) }, nil
	}
	exists, err := read(ctx, biz, idsOf(values))
	if err != nil {
		return nil, err
	}
	return func(v string) string {
		id, _ := strconv.ParseInt(v, 10, 64)
		if exists[id] {
			return fmt.Sprintf("%s %s of business %d holds no process", s.what, v, biz)
		}
		return fmt.Sprintf("%s is not a %s of business %d", v, s.what, biz)
	}, nil
}

// unmatchedHostSelectors are the values of bk_set_ids and bk_module_ids
// that are not sets or modules of business biz: list_biz_hosts does not say
// which set or module each host is in, so each list is checked with one
// find_set_batch or find_module_batch call.
func unmatchedHostSelectors(ctx context.Context, c *gse.Client, biz int64, m *cmdbHostsModel) ([]unmatched, error) {
	var out []unmatched
	for _, s := range []*selector{idSelector("bk_set_ids", "set", m.BkSetIDs), idSelector("bk_module_ids", "module", m.BkModuleIDs)} {
		if s == nil {
			continue
		}
		found, err := s.topoRead(c)(ctx, biz, s.ids)
		if err != nil {
			return nil, err
		}
		for i, id := range s.ids {
			if !found[id] {
				out = append(out, unmatched{s, s.values[i], fmt.Sprintf("%d is not a %s of business %d", id, s.what, biz)})
			}
		}
	}
	return out, nil
}

// reportUnmatched adds what matched nothing to diags: an error, or with
// allowEmpty a warning. object is what the data source selects ("process",
// "host").
func reportUnmatched(diags *diag.Diagnostics, object string, biz int64, found []unmatched, allowEmpty bool) {
	if len(found) == 0 {
		return
	}
	lines := make([]string, len(found))
	var attrs []string
	for i, u := range found {
		lines[i] = fmt.Sprintf("%s: %s matches nothing: %s", u.s.attr, u.s.show(u.value), u.reason)
		if !slices.Contains(attrs, u.s.attr) {
			attrs = append(attrs, u.s.attr)
		}
	}
	summary := fmt.Sprintf("%s of business %d match no %s", strings.Join(attrs, " and "), biz, object)
	detail := joinReasons(lines, 20, "... and %d more")
	if allowEmpty {
		diags.AddWarning(summary, detail+"\n\nallow_empty is true, so the selection goes on without them.")
		return
	}
	diags.AddError(summary, detail+"\n\nA value that matches nothing is most often a typo, and the "+cmdbfilter.Plural(object)+" it should have selected would be left out "+
		"(resources built on them destroyed). Correct or remove the value; if it is empty on purpose (a module emptied for a migration), set allow_empty = true.")
}

// reportEmpty adds the error (or with allowEmpty the warning) of a
// selection with no object ("process", "host") in it; why says where the
// selection came out empty.
func reportEmpty(diags *diag.Diagnostics, object string, biz int64, why string, allowEmpty bool) {
	summary := fmt.Sprintf("No %s selected in business %d", cmdbfilter.Plural(object), biz)
	if allowEmpty {
		diags.AddWarning(summary, why+"\n\nallow_empty is true: the selection is empty.")
		return
	}
	diags.AddError(summary, why+"\n\nResources built on an empty selection would all be destroyed. Check bk_biz_id and the selectors (a wrong business id lists nothing); "+
		"if the "+cmdbfilter.Plural(object)+" are gone on purpose, set allow_empty = true.")
}

// allowEmptyDesc is allow_empty's description for object ("process", "host").
func allowEmptyDesc(object, selectors string) string {
	return "Accept a selection that matches nothing: with `true`, a value of " + selectors + " that matches no " + object + " of the business, " +
		"and a selection with no " + object + " at all, are warnings, and the outputs empty where nothing matched. Unset or `false` (the default): either fails the read, " +
		"so that a typo cannot plan the destruction of what it left out. Set it while a module is emptied on purpose, then unset it. " +
		"It does not accept a `filter` field CMDB's " + cmdbfilter.Plural(object) + " do not have: that is always an error."
}
