package cmdbfilter

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// A filter field CMDB's objects do not have is no error at CMDB: MongoDB
// matches a missing field as null, so a misspelled field lists fewer hosts
// or processes, and a plan built on them destroys the rest. Every field a
// filter names must be one of CMDB's own (below, from bk-cmdb's model) or a
// custom field search_object_attribute lists for the business, asked once
// per read and only when the filter names a field not among CMDB's own.

// unknownFields are the fields of names that CMDB's objects of fields do
// not have in business biz, neither their own nor custom, and every field
// they have. It asks search_object_attribute only when a name is not among
// their own.
func unknownFields(ctx context.Context, c *gse.Client, biz int64, fields Object, names []string) (unknown, known []string, err error) {
	own := fields.own
	for _, n := range names {
		if !slices.Contains(own, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) == 0 {
		return nil, own, nil
	}
	custom, err := c.CMDB.ObjectFields(ctx, biz, fields.name())
	if err != nil {
		return nil, nil, err
	}
	known = slices.Concat(own, custom)
	return slices.DeleteFunc(unknown, func(n string) bool { return slices.Contains(custom, n) }), known, nil
}

// CheckFields checks that CMDB's objects of fields have every field filter
// f names in business biz (unknownFields), and says what is wrong in diags,
// at the filter's path at; advice says what a user can do about a call that
// failed. It reports whether the read may go on.
func CheckFields(ctx context.Context, c *gse.Client, biz int64, fields Object, f *Model, at path.Path, advice func(error) string, diags *diag.Diagnostics) bool {
	obj := fields.name()
	unknown, known, err := unknownFields(ctx, c, biz, fields, f.fields())
	switch {
	case err != nil:
		diags.AddError(fmt.Sprintf("Could not check the %s fields of %s (business %d)", obj, at, biz),
			strings.TrimSpace(fmt.Sprintf("The filter names a field that is not one of CMDB's own %s fields, and reading the business's custom fields failed: %s\n\n"+
				"Grant the app search_object_attribute (model view permission) in bk-cmdb, or check the field name. %s", obj, err, advice(err))))
		return false
	case len(unknown) > 0:
		diags.AddAttributeError(at, fmt.Sprintf("Unknown %s field in %s", obj, at), fieldsError(obj, biz, unknown, known))
		return false
	}
	return true
}

// fieldsError says which filter fields CMDB's objects do not have, and the
// nearest field each may have meant.
func fieldsError(object string, biz int64, unknown, known []string) string {
	lines := make([]string, len(unknown))
	for i, n := range unknown {
		lines[i] = fmt.Sprintf("%q is not a field of CMDB %s in business %d", n, Plural(object), biz)
		if near := nearestField(n, known); near != "" {
			lines[i] += fmt.Sprintf(" (did you mean %q?)", near)
		}
	}
	return strings.Join(lines, "\n") + "\n\nCMDB matches a field its " + Plural(object) + " do not have as empty, so the filter would select other " + Plural(object) +
		" than meant without an error (fewer, or more under a not_ operator), and what is built on them would change with it: resources on the hosts left out would be destroyed. Fix the field name: CMDB's model page of " + Plural(object) +
		" lists every field id, custom fields of the business included (search_object_attribute returns them)."
}

// nearestField is the field of known within two edits of n, or "".
func nearestField(n string, known []string) string {
	best, dist := "", 3
	for _, f := range known {
		if d := editDistance(n, f); d < dist {
			best, dist = f, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, with a transposition
// of neighbours one edit (a typo's usual shape).
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Plural is object ("host", "process") in the plural.
func Plural(object string) string {
	if strings.HasSuffix(object, "s") {
		return object + "es"
	}
	return object + "s"
}
