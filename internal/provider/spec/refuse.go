package spec

import (
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// identityRules are the rules spec.identity's schema holds its strings to,
// by attribute: the same rules Refuse holds values to that reach no schema.
var identityRules = map[string]plumbing.StringRule{
	"proc_name": plumbing.NonEmptyRule, "setup_path": plumbing.AbsolutePathRule, "pid_path": plumbing.AbsolutePathRule,
	"config_path": plumbing.AbsolutePathRule, "log_path": plumbing.AbsolutePathRule, "user": plumbing.NonEmptyRule,
}

// identityRule is the validator of spec.identity's attribute name.
func identityRule(name string) []validator.String {
	return []validator.String{identityRules[name].Validator()}
}

// Refuse is what gse_managed_process's plan would refuse of a process named
// name (meta.name) with s: the attribute, its value and the rule it breaks,
// or "" as attr when the plan takes them. Optional paths left empty are
// unset. The namespace is the caller's, held to its rule by its own schema.
func Refuse(name string, s *gse.Spec) (attr, value, rule string) {
	id := s.Identity
	for _, c := range []struct {
		attr, name, value string
		optional          bool
	}{
		{attr: "meta.name", value: name},
		{name: "proc_name", value: id.ProcName}, {name: "setup_path", value: id.SetupPath}, {name: "pid_path", value: id.PidPath},
		{name: "config_path", value: id.ConfigPath, optional: true}, {name: "log_path", value: id.LogPath, optional: true},
		{name: "user", value: id.User},
	} {
		r := plumbing.MetaNameRule
		if c.name != "" {
			r, c.attr = identityRules[c.name], "spec.identity."+c.name
		}
		unset := c.optional && c.value == ""
		if !unset && !r.Holds(c.value) {
			return c.attr, c.value, r.Requires
		}
	}
	return "", "", ""
}
