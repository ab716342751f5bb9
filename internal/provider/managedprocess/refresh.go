package managedprocess

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// refreshedModel is the part of gse_managed_process that Read looks at and
// may change; the rest (spec, triggers, timeouts) stays as it is in the state.
// Read runs for every resource on every plan, and getting and setting the
// whole model costs more than the rest of the refresh: the framework reflects
// over every field of every nested struct each time (terraform-plugin-framework
// v1.19 compiles a regular expression per field) and rewrites the whole value
// once per attribute set.
type refreshedModel struct {
	Meta       spec.Meta
	Hosts      hosts.List
	Managed    types.Bool
	Running    types.Bool
	HostStatus status.HostStatus
	AutoType   types.Int64    // spec.monitor_policy.auto_type, read only; null without a spec
	Timeouts   timeouts.Value // read only
}

func (m *refreshedModel) get(ctx context.Context, s tfsdk.State) diag.Diagnostics {
	var diags diag.Diagnostics
	var def spec.Value
	for _, f := range []struct {
		at     path.Path
		target any
	}{
		{path.Root("meta"), &m.Meta}, {path.Root("hosts"), &m.Hosts}, {path.Root("managed"), &m.Managed},
		{path.Root("running"), &m.Running}, {path.Root("host_status"), &m.HostStatus}, {path.Root("timeouts"), &m.Timeouts},
		{path.Root("spec"), &def},
	} {
		diags.Append(s.GetAttribute(ctx, f.at, f.target)...)
	}
	m.AutoType = def.Model().MonitorPolicy.AutoType
	return diags
}

// setChanged writes into s (which holds prior) the attributes of m that Read
// changed. Read only drops hosts, so the hosts changed when fewer are left.
func (m *refreshedModel) setChanged(ctx context.Context, prior refreshedModel, s *tfsdk.State) diag.Diagnostics {
	var diags diag.Diagnostics
	if len(m.Hosts.Hosts()) != len(prior.Hosts.Hosts()) {
		diags.Append(s.SetAttribute(ctx, path.Root("hosts"), m.Hosts)...)
	}
	if !m.Meta.Labels.Equal(prior.Meta.Labels) {
		diags.Append(s.SetAttribute(ctx, path.Root("meta").AtName("labels"), m.Meta.Labels)...)
	}
	if !m.Managed.Equal(prior.Managed) {
		diags.Append(s.SetAttribute(ctx, path.Root("managed"), m.Managed)...)
	}
	if !m.Running.Equal(prior.Running) {
		diags.Append(s.SetAttribute(ctx, path.Root("running"), m.Running)...)
	}
	if !m.HostStatus.Equal(prior.HostStatus) {
		diags.Append(s.SetAttribute(ctx, path.Root("host_status"), m.HostStatus)...)
	}
	return diags
}

// observe is what Read finds of the hosts of list in obs: those kept (the process is
// registered there, or the agent is down and GSE cannot say), how many of
// those it answered for host the process and run it, and the process's labels.
func observe(list []hosts.Pair, obs status.Observed) (kept []hosts.Pair, hosted, running int, labels map[string]string) {
	for _, h := range list {
		e, seen := obs.At(h.Host())
		if seen == status.Unknown {
			kept = append(kept, h) // unknown, not gone: counted in neither flag
			continue
		}
		if seen == status.Absent {
			continue
		}
		kept = append(kept, h)
		labels = e.Meta.Labels
		if e.IsAuto {
			hosted++
		}
		if e.Status == gse.StateRunning {
			running++
		}
	}
	return kept, hosted, running, labels
}
