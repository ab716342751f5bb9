package managedprocess

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

type managedProcessModel struct {
	ID              types.String      `tfsdk:"id"`
	Meta            spec.Meta         `tfsdk:"meta"`
	Hosts           hosts.List        `tfsdk:"hosts"`
	Spec            spec.Value        `tfsdk:"spec"` // null after import: GSE cannot read it back
	Managed         types.Bool        `tfsdk:"managed"`
	Running         types.Bool        `tfsdk:"running"`
	RestartTriggers types.Map         `tfsdk:"restart_triggers"`
	ReloadTriggers  types.Map         `tfsdk:"reload_triggers"`
	HostStatus      status.HostStatus `tfsdk:"host_status"`
	Rollout         *rollout.Model    `tfsdk:"rollout"`
	Timeouts        timeouts.Value    `tfsdk:"timeouts"`
}

// hostStatusValue builds host_status for hosts from their status entries (see status.Find).
func hostStatusValue(hosts []hosts.Model, byKey map[string]gse.ProcStatus) status.HostStatus {
	entries := make(map[string]status.HostEntry, len(hosts))
	for _, h := range hosts {
		if e, ok := byKey[h.Expand().Key()]; ok {
			entries[statusKey(h)] = status.HostEntry{Status: types.StringValue(status.Name(e.Status)), Managed: types.BoolValue(e.IsAuto)}
		}
	}
	return status.NewHostStatus(entries)
}

// proven records in host_status what a successful apply proved on hosts:
// the run state and hosting a success proves (gse.OpInfo.Running, Hosted). A
// fact no task proved is null until appliedStatus reads it; hosts the apply
// did not touch keep their last refreshed values.
type proven struct {
	prior   status.HostStatus // host_status of the prior state (null on create)
	touched map[string]hostFacts
}

type hostFacts struct {
	running, managed *bool
}

// note records what op's success proved on hosts; a start or restart of a
// one-shot process proves no run state (it may have run and exited).
func (p *proven) note(hosts []gse.Host, op gse.OpType, oneShot bool) {
	if p.touched == nil {
		p.touched = map[string]hostFacts{}
	}
	proves := op.Info()
	for _, h := range hosts {
		facts := p.touched[h.Key()]
		switch {
		case oneShot && proves.Starts:
			facts.running = nil // it may have run and exited already
		case proves.Running != nil:
			facts.running = proves.Running
		}
		if proves.Hosted != nil {
			facts.managed = proves.Hosted
		}
		p.touched[h.Key()] = facts
	}
}

// value is host_status for hosts after the apply.
func (p *proven) value(hosts []hosts.Model) status.HostStatus {
	entries := make(map[string]status.HostEntry, len(hosts))
	for _, h := range hosts {
		k := statusKey(h)
		facts, touched := p.touched[h.Expand().Key()]
		old, known := p.prior.Entries[k]
		switch {
		case !touched && known:
			entries[k] = old
		case !touched:
			entries[k] = status.HostEntry{} // all null
		default:
			var e status.HostEntry
			if facts.running != nil {
				e.Status = types.StringValue(map[bool]string{true: "running", false: "stopped"}[*facts.running])
			}
			if facts.managed != nil {
				e.Managed = types.BoolValue(*facts.managed)
			}
			entries[k] = e
		}
	}
	return status.NewHostStatus(entries)
}

// statusKey is the key of a host in host_status: its address as written in
// the configuration (gse.Host.Address: {bk_cloud_id}:{ip}, or the agent id of
// a host given by one), not its Key, so the keys of existing states stay.
func statusKey(h hosts.Model) string {
	return gse.Host{IP: h.IP.ValueString(), BkCloudID: h.BkCloudID.ValueInt64(), AgentID: h.AgentID.ValueString()}.Address()
}

// desired is what the configuration last asked of hosting and run state. It
// lives in private state because refresh overwrites managed and running with
// what GSE reports: judging the next refresh against that would flip a drifted
// value back and hide the drift.
type desired struct {
	Managed bool  `json:"managed"`
	Running *bool `json:"running,omitempty"`
}

const desiredKey = "desired"

type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

func saveDesired(ctx context.Context, p privateSetter, plan *managedProcessModel) diag.Diagnostics {
	d := desired{Managed: plan.Managed.ValueBool()}
	if !plan.Running.IsNull() {
		r := plan.Running.ValueBool()
		d.Running = &r
	}
	b, _ := json.Marshal(d)
	return p.SetKey(ctx, desiredKey, b)
}

// loadDesired reads the desired state; without one (an import) the state's
// own managed and running stand for it, a null managed meaning the default, true.
func loadDesired(ctx context.Context, p privateGetter, managed, running types.Bool, diags *diag.Diagnostics) desired {
	b, d := p.GetKey(ctx, desiredKey)
	diags.Append(d...)
	var out desired
	if len(b) > 0 && json.Unmarshal(b, &out) == nil {
		return out
	}
	out.Managed = managed.IsNull() || managed.ValueBool()
	if !running.IsNull() {
		r := running.ValueBool()
		out.Running = &r
	}
	return out
}

// observedFlag is the value of managed or running to record after a read, when
// n of total hosts have the condition and want was asked: a wanted true is
// kept only while every host has it, a wanted false only while none has it,
// so any host that turned shows as drift.
func observedFlag(want bool, n, total int) bool {
	if want {
		return n == total
	}
	return n > 0
}

// runSettled reports whether a host_status entry shows the run state an
// update wants (running or not); one that does not know shows none.
func runSettled(e status.HostEntry, running bool) bool {
	return known(e.Status) && (e.Status.ValueString() == "running") == running
}

// hostingSettled reports whether a host_status entry shows the hosting an
// update wants (managed or not).
func hostingSettled(e status.HostEntry, managed bool) bool {
	return known(e.Managed) && e.Managed.ValueBool() == managed
}

// known reports whether v is neither null nor unknown.
func known(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }
