package service

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
)

// step is what one apply runs of a release: the canary's instances, in
// tiers of their own before the others; the rest; and those it holds back
// (rollout.paused, or a manual promotion not given yet), which stay pending.
//
// The canary follows Nomad's update stanza (canary, auto_promote: the
// canaries first, the rest only once they are healthy and promoted) and
// Argo Rollouts' steps with a pause for manual promotion; GSE has no
// traffic weights, so a canary is a share of each group's hosts.
type step struct {
	canary  []*instance
	rest    []*instance
	waiting map[string]waiting
	// canaryRevision is canary_revision as planned: unknown when a canary
	// runs, since the apply finds whether it passes.
	canaryRevision types.String
}

// waiting is an instance held back, with its action and why.
type waiting struct {
	action action
	why    string
}

// awaitingPromotion is the message of an instance held for promotion.
func awaitingPromotion(rev string) string {
	return fmt.Sprintf("awaiting promotion: once the canary passed, set promote_revision = %q", rev)
}

const heldPaused = "held: rollout.paused is true"

// stepOf splits acted, the instances the plan acts on, into the step of
// revision rev. released are those the release acts on (not a repair
// alone): only they are canaried and held. Removals are neither: a held
// removal would leave a process the state no longer holds.
func stepOf(m *serviceModel, p *prior, released map[string]bool, acted []*instance, rev string, selected selector, diags *diag.Diagnostics) step {
	st := step{waiting: map[string]waiting{}, canaryRevision: p.canaryRevision}
	var rel []*instance
	for _, in := range acted {
		if released[in.key] && in.action != actRemove {
			rel = append(rel, in)
		} else {
			st.rest = append(st.rest, in)
		}
	}
	var c *canaryModel
	if ro := m.Rollout; ro != nil {
		if ro.Paused.ValueBool() {
			st.hold(rel, heldPaused)
			return st
		}
		c = ro.Canary
	}
	switch {
	case c == nil || p.firstRelease:
		st.canaryRevision = types.StringValue(rev)
		st.rest = append(st.rest, rel...)
		return st
	case len(rel) == 0:
		return st
	}
	promoted := c.Promote.ValueString() != promoteManual || m.PromoteRevision.ValueString() == rev
	var canary map[*instance]bool
	if p.canaryRevision.ValueString() != rev {
		sel := selected()
		if sel == nil {
			return st
		}
		canary = pickCanary(rel, c.Size, sel)
		if len(canary) == 0 {
			diags.AddAttributeError(selectPath, "The canary's select matches no host of the release",
				fmt.Sprintf("None of the %d instances this release acts on is on a host rollout.canary.select holds (its ids and filters together), "+
					"so no canary would run: correct it, or leave it unset to take the first hosts. bk_set_ids and bk_module_ids match only the instances whose bk_set_id and bk_module_id "+
					"processes gives, and the filters only those whose bk_host_id it gives (gse_cmdb_processes.groups read with_instances = true).", len(rel)))
			return st
		}
		st.canaryRevision = types.StringUnknown()
	}
	for _, in := range rel {
		switch {
		case canary[in]:
			st.canary = append(st.canary, in)
		case promoted:
			st.rest = append(st.rest, in)
		default:
			st.hold([]*instance{in}, awaitingPromotion(rev))
		}
	}
	return st
}

func (st *step) hold(ins []*instance, why string) {
	for _, in := range ins {
		st.waiting[in.key] = waiting{action: in.action, why: why}
	}
}

// pickCanary takes, of each group, size of the hosts it acts on in its
// first tier (descending before ascending, as the schedule runs them), in
// the order batches take hosts, among those selected; the canary is the
// group's instances on them. A percentage is of all the group's hosts
// there, selected or not.
func pickCanary(ins []*instance, size types.String, selected func(*instance) bool) map[*instance]bool {
	byGroup := map[string][]*instance{}
	for _, in := range ins {
		byGroup[in.group] = append(byGroup[in.group], in)
	}
	out := map[*instance]bool{}
	for _, gi := range byGroup {
		first := false
		for _, in := range gi {
			first = first || in.action.descending()
		}
		all, sel := map[string]bool{}, map[string]bool{}
		var hs []gse.Host
		for _, in := range gi {
			if in.action.descending() != first {
				continue
			}
			all[in.host.Key()] = true
			if selected(in) && !sel[in.host.Key()] {
				sel[in.host.Key()] = true
				hs = append(hs, in.host)
			}
		}
		hs = rollout.OrderHosts(hs)
		chosen := map[string]bool{}
		for _, h := range hs[:min(len(hs), rollout.BatchLen(size, len(all)))] {
			chosen[h.Key()] = true
		}
		for _, in := range gi {
			if chosen[in.host.Key()] {
				out[in] = true
			}
		}
	}
	return out
}

// schedule is the step's tiers: the canary's, one batch each, then the
// rest's in batches of batchSize, numbered in that order.
func (st step) schedule(byPriority bool, batchSize types.String) []tier {
	tiers := buildSchedule(st.canary, byPriority, types.StringNull())
	for i := range tiers {
		tiers[i].canary = true
	}
	return number(append(tiers, buildSchedule(st.rest, byPriority, batchSize)...))
}
