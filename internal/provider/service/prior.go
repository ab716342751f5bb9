package service

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// prior is what the state says of the service before a plan.
type prior struct {
	groups          map[string]*group
	models          map[string]instanceModel // as the state holds them
	made            map[string]instanceModel // the instances the state's processes make, with their facts
	running         bool
	restart, reload string // the triggers' values, as types.Map.String
	schedule        *types.List
	canaryRevision  types.String
	// firstRelease: a create, or an import's first apply, which no canary
	// holds back (rollout.canary is for updates).
	firstRelease bool
}

// priorOf is what state holds; for a create, a service with nothing yet
// that asks what d and m ask (so that nothing but the new instances acts);
// for an import not applied since, what it found that asks the same (adopted).
func priorOf(ctx context.Context, state tfsdk.State, d *desired, m *serviceModel, diags *diag.Diagnostics) *prior {
	if state.Raw.IsNull() {
		return &prior{groups: map[string]*group{}, models: map[string]instanceModel{}, running: d.running,
			restart: m.RestartTriggers.String(), reload: m.ReloadTriggers.String(), canaryRevision: types.StringNull(), firstRelease: true}
	}
	var s serviceModel
	if diags.Append(state.Get(ctx, &s)...); diags.HasError() {
		return nil
	}
	p := stateOf(ctx, &s, diags)
	if p != nil && s.Processes.IsNull() {
		adopted(p, d, m, diags)
		p.firstRelease = true
	}
	return p
}

// model is the state's instance k with its facts (factsFrom).
func (p *prior) model(k string) instanceModel { return p.models[k].factsFrom(p.made[k]) }

// stateOf is a state's model as a prior.
func stateOf(ctx context.Context, s *serviceModel, diags *diag.Diagnostics) *prior {
	sd := expandDesired(ctx, s, false, diags)
	if diags.HasError() {
		return nil
	}
	p := &prior{groups: sd.groups, models: map[string]instanceModel{}, made: sd.models, running: sd.running,
		restart: s.RestartTriggers.String(), reload: s.ReloadTriggers.String(), schedule: &s.Schedule, canaryRevision: s.CanaryRevision}
	maps.Copy(p.models, instancesOf(s.Instances.Map(diags)))
	if diags.HasError() {
		return nil
	}
	if s.Processes.IsNull() {
		importedGroups(p)
	}
	return p
}
