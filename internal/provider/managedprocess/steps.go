package managedprocess

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/lifecycle"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// This file turns gse_managed_process into the plain state the lifecycle
// steps take (package lifecycle), and what they report back into the model.

// expand is the process m asks for, as the lifecycle steps take it, and its
// hosts paired with their client hosts, which key what the steps report.
func (m *managedProcessModel) expand(ctx context.Context) (lifecycle.Desired, []hosts.Pair, diag.Diagnostics) {
	meta, diags := m.Meta.Expand(ctx)
	pairs := m.Hosts.Pairs()
	return lifecycle.Desired{
		Meta: meta, Spec: m.Spec.Expand(), Hosts: plumbing.Each(pairs, hosts.Pair.Host),
		Managed: m.Managed.ValueBool(), Running: m.Running.ValueBoolPointer(),
		RestartTriggers: triggerValue(m.RestartTriggers), ReloadTriggers: triggerValue(m.ReloadTriggers),
		Rollout: m.Rollout.Expand(),
	}, pairs, diags
}

// reached is m, the prior state of an update that failed, with what the
// update applied of plan: the hosts it cleared leave, the hosts it added
// join, and each setting it applied takes plan's value. held and planned are
// the hosts of m and of plan (expand); it returns the hosts of the result.
func (m managedProcessModel) reached(plan *managedProcessModel, a lifecycle.Applied, held, planned []hosts.Pair) (managedProcessModel, []hosts.Pair) {
	pairs := held
	if len(a.Cleared) > 0 || len(a.Added) > 0 {
		key := plumbing.KeyOf(hosts.Pair.Host)
		pairs = slices.Concat(
			plumbing.SelectBy(held, key, plumbing.Each(a.Cleared, gse.Host.Key), false),
			plumbing.SelectBy(planned, key, plumbing.Each(a.Added, gse.Host.Key), true))
		m.Hosts = hosts.NewList(plumbing.Each(pairs, hosts.Pair.Model))
	}
	if a.Hosting {
		m.Managed = plan.Managed
	}
	if a.Spec {
		m.Spec, m.Meta.Labels = plan.Spec, plan.Meta.Labels
	}
	if a.Running {
		m.Running = plan.Running
	}
	if a.Restart {
		m.RestartTriggers = plan.RestartTriggers
	}
	if a.Reload {
		m.ReloadTriggers = plan.ReloadTriggers
	}
	return m, pairs
}

// triggerValue is a trigger map as JSON with sorted keys, to compare values
// across applies; nil when the map is null.
func triggerValue(m types.Map) *string {
	if m.IsNull() {
		return nil
	}
	vals := make(map[string]string, len(m.Elements()))
	for k, v := range m.Elements() {
		vals[k] = v.String()
	}
	b, _ := json.Marshal(vals)
	s := string(b)
	return &s
}

// rolloutTriggersKey is the private state key of the triggers not finished
// (lifecycle.TriggerProgress): the provider's memory of an unfinished step,
// not something a user configures or should see drift on, so not a state
// attribute.
const rolloutTriggersKey = "rollout_triggers"

func loadTriggerProgress(ctx context.Context, p privateGetter, diags *diag.Diagnostics) lifecycle.TriggerProgresses {
	b, d := p.GetKey(ctx, rolloutTriggersKey)
	diags.Append(d...)
	out := lifecycle.TriggerProgresses{}
	if len(b) > 0 {
		_ = json.Unmarshal(b, &out) // unreadable: every host is owed the trigger again
	}
	return out
}

func saveTriggerProgress(ctx context.Context, p privateSetter, t lifecycle.TriggerProgresses) diag.Diagnostics {
	if len(t) == 0 {
		return p.SetKey(ctx, rolloutTriggersKey, nil)
	}
	b, _ := json.Marshal(t)
	return p.SetKey(ctx, rolloutTriggersKey, b)
}
