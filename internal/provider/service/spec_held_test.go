package service

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// TestSpecHeld: an operation goes without update_proc_info only where the
// last apply sent the spec it asks for.
func TestSpecHeld(t *testing.T) {
	spec := func(cmd string) *group {
		return &group{meta: gse.Meta{Namespace: "ns", Name: "p"}, spec: &gse.Spec{Control: gse.Control{StartCmd: cmd}}}
	}
	done := instanceModel{Action: types.StringNull(), Status: types.StringValue(statusRunning)}
	failed := instanceModel{Action: types.StringValue("reload"), Status: types.StringValue(statusFailed)}
	absent := instanceModel{Action: types.StringNull(), Status: types.StringValue(statusAbsent)}
	cases := map[string]struct {
		prior, want *group
		pm          *instanceModel
		held        bool
	}{
		"same spec, last action done": {spec("./start"), spec("./start"), &done, true},
		"spec changed":                {spec("./start"), spec("./start -v"), &done, false},
		"last action failed":          {spec("./start"), spec("./start"), &failed, false},
		"found absent":                {spec("./start"), spec("./start"), &absent, false},
		"new instance":                {spec("./start"), spec("./start"), nil, false},
		"group new to the state":      {nil, spec("./start"), &done, false},
		"imported, no spec known":     {&group{meta: gse.Meta{Namespace: "ns", Name: "p"}}, spec("./start"), &done, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := &prior{groups: map[string]*group{}, models: map[string]instanceModel{}}
			if c.prior != nil {
				p.groups["ns/p"] = c.prior
			}
			if c.pm != nil {
				p.models["ns/p@0:10.0.0.1"] = *c.pm
			}
			d := &desired{groups: map[string]*group{"ns/p": c.want}}
			if got := specHeld(d, p)("ns/p@0:10.0.0.1", "ns/p"); got != c.held {
				t.Errorf("specHeld = %t, want %t", got, c.held)
			}
		})
	}
}
