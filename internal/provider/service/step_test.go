package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// stepInstances are two groups' reloads on hosts 1-4 (a on each, b on 3
// and 4 in set 102), a repair alone of a on host 4's neighbour, and a
// removal.
func stepInstances() ([]*instance, map[string]bool) {
	var ins []*instance
	add := func(g string, h int, a action, set int64) {
		ins = append(ins, &instance{key: fmt.Sprintf("ns/%s@0:10.0.0.%d", g, h), group: "ns/" + g,
			host: gse.Host{IP: fmt.Sprintf("10.0.0.%d", h)}, action: a, bkHostID: int64(h), set: set})
	}
	for h := 1; h <= 4; h++ {
		add("a", h, actReload, 101+int64(h/3))
	}
	add("b", 3, actReload, 102)
	add("b", 4, actReload, 102)
	add("a", 5, actStart, 102)  // a repair alone
	add("c", 1, actRemove, 101) // removed from processes
	released := map[string]bool{}
	for _, in := range ins {
		if in.host.IP != "10.0.0.5" {
			released[in.key] = true
		}
	}
	return ins, released
}

func keysOf(ins []*instance) string {
	out := make([]string, len(ins))
	for i, in := range ins {
		out[i] = strings.TrimPrefix(in.key, "ns/")
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func waitingKeys(w map[string]waiting) string {
	var out []string
	for k, v := range w {
		out = append(out, strings.TrimPrefix(k, "ns/")+"="+v.why[:min(len(v.why), 8)])
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// TestStepOf: what one apply runs of a release and what it holds, as the
// canary, its promotion and rollout.paused say; a repair alone and a
// removal always run, a create is never canaried.
func TestStepOf(t *testing.T) {
	const rev = "r2"
	canary := func(size, promote string) *rolloutModel {
		return &rolloutModel{Canary: &canaryModel{Size: types.StringValue(size), Promote: types.StringValue(promote)}}
	}
	ids := func(v ...int64) types.Set {
		els := make([]attr.Value, len(v))
		for i, id := range v {
			els[i] = types.Int64Value(id)
		}
		return types.SetValueMust(types.Int64Type, els)
	}
	selected := canary("1", "")
	selected.Canary.Select = &selectModel{BkSetIDs: ids(102), BkModuleIDs: types.SetNull(types.Int64Type), BkHostIDs: types.SetNull(types.Int64Type)}
	cases := map[string]struct {
		rollout        *rolloutModel
		promoteRev     string
		canaryRev      string
		first          bool
		canary, rest   string
		waits          string
		canaryRevision string // "?" for unknown
	}{
		"no canary": {rollout: nil, canaryRev: "r1",
			rest: "a@0:10.0.0.1 a@0:10.0.0.2 a@0:10.0.0.3 a@0:10.0.0.4 a@0:10.0.0.5 b@0:10.0.0.3 b@0:10.0.0.4 c@0:10.0.0.1", canaryRevision: rev},
		"a create": {rollout: canary("1", promoteManual), first: true,
			rest: "a@0:10.0.0.1 a@0:10.0.0.2 a@0:10.0.0.3 a@0:10.0.0.4 a@0:10.0.0.5 b@0:10.0.0.3 b@0:10.0.0.4 c@0:10.0.0.1", canaryRevision: rev},
		"auto: one host of each group first": {rollout: canary("1", ""), canaryRev: "r1",
			canary: "a@0:10.0.0.1 b@0:10.0.0.3", rest: "a@0:10.0.0.2 a@0:10.0.0.3 a@0:10.0.0.4 a@0:10.0.0.5 b@0:10.0.0.4 c@0:10.0.0.1", canaryRevision: "?"},
		"a percentage of each group's hosts": {rollout: canary("50%", ""), canaryRev: "r1",
			canary: "a@0:10.0.0.1 a@0:10.0.0.2 b@0:10.0.0.3", rest: "a@0:10.0.0.3 a@0:10.0.0.4 a@0:10.0.0.5 b@0:10.0.0.4 c@0:10.0.0.1", canaryRevision: "?"},
		"manual: the rest awaits": {rollout: canary("1", promoteManual), canaryRev: "r1",
			canary: "a@0:10.0.0.1 b@0:10.0.0.3", rest: "a@0:10.0.0.5 c@0:10.0.0.1",
			waits: "a@0:10.0.0.2=awaiting a@0:10.0.0.3=awaiting a@0:10.0.0.4=awaiting b@0:10.0.0.4=awaiting", canaryRevision: "?"},
		"manual, promoted before its canary": {rollout: canary("1", promoteManual), promoteRev: rev, canaryRev: "r1",
			canary: "a@0:10.0.0.1 b@0:10.0.0.3", rest: "a@0:10.0.0.2 a@0:10.0.0.3 a@0:10.0.0.4 a@0:10.0.0.5 b@0:10.0.0.4 c@0:10.0.0.1", canaryRevision: "?"},
		"canary passed, not promoted": {rollout: canary("1", promoteManual), promoteRev: "r1", canaryRev: rev,
			rest:  "a@0:10.0.0.5 c@0:10.0.0.1",
			waits: "a@0:10.0.0.1=awaiting a@0:10.0.0.2=awaiting a@0:10.0.0.3=awaiting a@0:10.0.0.4=awaiting b@0:10.0.0.3=awaiting b@0:10.0.0.4=awaiting", canaryRevision: rev},
		"canary passed, promoted": {rollout: canary("1", promoteManual), promoteRev: rev, canaryRev: rev,
			rest: "a@0:10.0.0.1 a@0:10.0.0.2 a@0:10.0.0.3 a@0:10.0.0.4 a@0:10.0.0.5 b@0:10.0.0.3 b@0:10.0.0.4 c@0:10.0.0.1", canaryRevision: rev},
		"select: the first selected host of each group": {rollout: selected, canaryRev: "r1",
			canary: "a@0:10.0.0.3 b@0:10.0.0.3", rest: "a@0:10.0.0.1 a@0:10.0.0.2 a@0:10.0.0.4 a@0:10.0.0.5 b@0:10.0.0.4 c@0:10.0.0.1", canaryRevision: "?"},
		"paused": {rollout: &rolloutModel{Paused: types.BoolValue(true)}, canaryRev: "r1",
			rest:           "a@0:10.0.0.5 c@0:10.0.0.1",
			waits:          "a@0:10.0.0.1=held: ro a@0:10.0.0.2=held: ro a@0:10.0.0.3=held: ro a@0:10.0.0.4=held: ro b@0:10.0.0.3=held: ro b@0:10.0.0.4=held: ro",
			canaryRevision: "r1"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ins, released := stepInstances()
			m := &serviceModel{Rollout: c.rollout, PromoteRevision: types.StringValue(c.promoteRev)}
			p := &prior{canaryRevision: types.StringValue(c.canaryRev), firstRelease: c.first}
			var diags diag.Diagnostics
			st := stepOf(m, p, released, ins, rev, selectorOf(context.Background(), nil, m, &diags), &diags)
			got := st.canaryRevision.ValueString()
			if st.canaryRevision.IsUnknown() {
				got = "?"
			}
			if diags.HasError() || keysOf(st.canary) != c.canary || keysOf(st.rest) != c.rest || waitingKeys(st.waiting) != c.waits || got != c.canaryRevision {
				t.Errorf("canary %q\nrest %q\nwaits %q\ncanary_revision %q\n%v", keysOf(st.canary), keysOf(st.rest), waitingKeys(st.waiting), got, diags)
			}
		})
	}
}

// A select that matches no host the release acts on fails the plan.
func TestStepOfSelectMatchingNothing(t *testing.T) {
	ins, released := stepInstances()
	ro := &rolloutModel{Canary: &canaryModel{Size: types.StringValue("1"), Select: &selectModel{
		BkSetIDs: types.SetValueMust(types.Int64Type, []attr.Value{types.Int64Value(999)}), BkModuleIDs: types.SetNull(types.Int64Type), BkHostIDs: types.SetNull(types.Int64Type)}}}
	var diags diag.Diagnostics
	m := &serviceModel{Rollout: ro}
	stepOf(m, &prior{canaryRevision: types.StringValue("r1")}, released, ins, "r2", selectorOf(context.Background(), nil, m, &diags), &diags)
	if !diags.HasError() || !strings.Contains(diags.Errors()[0].Summary(), "select matches no host") {
		t.Errorf("diagnostics %v, want the select's error", diags)
	}
}

// selection holds an instance when every part of select given holds it:
// its ids on the instance's set and host, and the hosts CMDB listed for its
// filters.
func TestSelection(t *testing.T) {
	ins, _ := stepInstances()
	ids := func(vs ...int64) types.Set {
		els := make([]attr.Value, len(vs))
		for i, v := range vs {
			els[i] = types.Int64Value(v)
		}
		return types.SetValueMust(types.Int64Type, els)
	}
	none := types.SetNull(types.Int64Type)
	for name, c := range map[string]struct {
		s        *selectModel
		filtered map[int64]bool
		want     string
	}{
		"no select":           {nil, nil, "a@0:10.0.0.1 a@0:10.0.0.2 a@0:10.0.0.3 a@0:10.0.0.4 a@0:10.0.0.5 b@0:10.0.0.3 b@0:10.0.0.4 c@0:10.0.0.1"},
		"filters alone":       {&selectModel{BkSetIDs: none, BkModuleIDs: none, BkHostIDs: none}, map[int64]bool{2: true, 4: true}, "a@0:10.0.0.2 a@0:10.0.0.4 b@0:10.0.0.4"},
		"set ids and filter":  {&selectModel{BkSetIDs: ids(102), BkModuleIDs: none, BkHostIDs: none}, map[int64]bool{2: true, 4: true}, "a@0:10.0.0.4 b@0:10.0.0.4"},
		"filter selects none": {&selectModel{BkSetIDs: none, BkModuleIDs: none, BkHostIDs: none}, map[int64]bool{}, ""},
	} {
		sel := selection(c.s, c.filtered)
		var got []*instance
		for _, in := range ins {
			if sel(in) {
				got = append(got, in)
			}
		}
		if keysOf(got) != c.want {
			t.Errorf("%s: %q, want %q", name, keysOf(got), c.want)
		}
	}
}
