package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// rollOperate performs op on hosts batch by batch (see rollout.run) through
// operate, the path every operation of gse_managed_process takes, and returns
// the hosts where it succeeded. wait_running applies to the operations that
// leave the process running (gse.OpInfo.Starts).
func (r *managedProcessResource) rollOperate(ctx context.Context, ro *rollout, meta gse.Meta, spec *gse.Spec, op gse.OpType, hosts []gse.Host, pr *proven) ([]gse.Host, error) {
	st := rolloutStep{what: op.Info().Verb, target: meta, run: func(ctx context.Context, batch []gse.Host) error {
		_, err := r.operate(ctx, meta, spec, op, batch, pr)
		return err
	}}
	if op.Info().Starts {
		st.notRunning = gseNotRunning(r.client, meta)
	}
	return ro.run(ctx, hosts, st)
}

// triggerProgress is how a restart or reload trigger that did not reach
// every host is finished. The state keeps the prior trigger value, so the
// next plan shows the trigger still to apply; private state (key
// rolloutTriggersKey) records, per trigger, the value being rolled out and
// the hosts it already reached. The next apply runs it only on the other
// hosts, and only while the trigger still has that value: a new value must
// reach every host again. Per-host bookkeeping in private state rather than
// a state attribute: it is the provider's memory of an unfinished step, not
// something a user configures or should see drift on.
type triggerProgress struct {
	Want string   `json:"want"` // the trigger map being rolled out, as JSON
	Done []string `json:"done"` // gse.Host.Key of the hosts it reached
}

const rolloutTriggersKey = "rollout_triggers"

// triggerProgresses are the unfinished triggers by name ("restart", "reload").
type triggerProgresses map[string]triggerProgress

func loadTriggerProgress(ctx context.Context, p privateGetter, diags *diag.Diagnostics) triggerProgresses {
	b, d := p.GetKey(ctx, rolloutTriggersKey)
	diags.Append(d...)
	out := triggerProgresses{}
	if len(b) > 0 {
		_ = json.Unmarshal(b, &out) // unreadable: every host is owed the trigger again
	}
	return out
}

func (t triggerProgresses) save(ctx context.Context, p privateSetter) diag.Diagnostics {
	if len(t) == 0 {
		return p.SetKey(ctx, rolloutTriggersKey, nil)
	}
	b, _ := json.Marshal(t)
	return p.SetKey(ctx, rolloutTriggersKey, b)
}

// triggerValue is a trigger map as JSON with sorted keys, to compare values across applies.
func triggerValue(m types.Map) string {
	vals := make(map[string]string, len(m.Elements()))
	for k, v := range m.Elements() {
		vals[k] = v.String()
	}
	b, _ := json.Marshal(vals)
	return string(b)
}

// runTrigger runs a changed trigger's op on the hosts it still owes and
// records how far it got in progress.
func (r *managedProcessResource) runTrigger(ctx context.Context, ro *rollout, meta gse.Meta, spec *gse.Spec, name string, op gse.OpType, value types.Map, all []gse.Host, progress triggerProgresses, pr *proven) error {
	want := triggerValue(value)
	prev, resumed := progress[name]
	hosts := all
	if resumed && prev.Want == want {
		hosts = selectBy(all, gse.Host.Key, prev.Done, false)
	} else {
		prev = triggerProgress{Want: want}
	}
	done, err := r.rollOperate(ctx, ro, meta, spec, op, hosts, pr)
	if err != nil {
		prev.Done = append(prev.Done, each(done, gse.Host.Key)...)
		progress[name] = prev
		return err
	}
	delete(progress, name)
	return nil
}

// createInBatches registers the process and brings it to the planned hosting
// and run state (converge), batch by batch, and returns the hosts where it
// may be registered. Hosts of batches never reached stay untouched: not even
// registered.
func (r *managedProcessResource) createInBatches(ctx context.Context, meta gse.Meta, spec *gse.Spec, plan *managedProcessModel, hosts []gse.Host, pr *proven) ([]gse.Host, error) {
	var registered []gse.Host
	st := rolloutStep{what: "create", target: meta, run: func(ctx context.Context, batch []gse.Host) error {
		got, err := r.register(ctx, meta, spec, plan, batch, pr) // managed_process_gateway.go
		registered = append(registered, got...)
		if err != nil || r.client.Gateway() { // through the gateway, register converges too
			return err
		}
		return r.converge(ctx, meta, spec, plan, got, pr)
	}}
	if plan.Running.ValueBool() {
		st.notRunning = gseNotRunning(r.client, meta)
	}
	_, err := plan.Rollout.plan().run(ctx, hosts, st)
	return registered, err
}
