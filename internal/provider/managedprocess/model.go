package managedprocess

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

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
