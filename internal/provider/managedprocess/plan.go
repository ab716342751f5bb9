package managedprocess

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// sameExcept reports whether two objects hold equal values in every attribute but skip.
func sameExcept(a, b tftypes.Value, skip string) bool {
	var am, bm map[string]tftypes.Value
	if a.As(&am) != nil || b.As(&bm) != nil {
		return false
	}
	for k, v := range am {
		if k != skip && !v.Equal(bm[k]) {
			return false
		}
	}
	return true
}

// sayHostsMoving names, in a warning, the hosts a plan removes and adds.
// Terraform renders a change of a list nested attribute element by element,
// by position, so one host leaving and another joining reads as
// `~ ip = "10.0.0.3" -> "10.0.0.150"`. A set would render them as - and +,
// but Terraform compares sets of objects pairwise (objchange
// proposedNewNestingSet, AssertObjectCompatible): with 10,000 hosts a create
// that takes 15 s as a list had not finished after 6 minutes as a set.
func sayHostsMoving(ctx context.Context, state tfsdk.State, plan tfsdk.Plan, diags *diag.Diagnostics) {
	var prior, planned hosts.List
	if state.GetAttribute(ctx, path.Root("hosts"), &prior).HasError() || plan.GetAttribute(ctx, path.Root("hosts"), &planned).HasError() ||
		planned.IsUnknown() || planned.Unknown != nil {
		return
	}
	removed, added, _ := plumbing.DiffBy(prior.Hosts(), planned.Hosts(), plumbing.KeyOf(hosts.Model.Expand))
	if len(removed) == 0 && len(added) == 0 {
		return
	}
	diags.AddAttributeWarning(path.Root("hosts"), plumbing.HostCount(len(removed))+fmt.Sprintf(" leaving, %d joining", len(added)),
		fmt.Sprintf("Leaving (the process is removed there): %s.\nJoining (the process is registered there): %s.\n"+
			"Terraform shows the change of hosts position by position, so a host leaving and another joining at the same position "+
			"reads as a change of its ip or bk_cloud_id above; no host changes address.",
			hostNames(plumbing.Each(removed, hosts.Model.StatusKey)), hostNames(plumbing.Each(added, hosts.Model.StatusKey))))
}

// sayHostsDrifted names, in a warning, the hosts whose host_status the
// refresh found out of the planned run state or hosting: the hosts a repair
// acts on, and the only ones (lifecycle's setRunning, setHosting), which host_status shows
// only among every host's entries.
func sayHostsDrifted(ctx context.Context, state tfsdk.State, plan tfsdk.Plan, diags *diag.Diagnostics) {
	var planned hosts.List
	var prior status.HostStatus
	var running, managed types.Bool
	for _, d := range []diag.Diagnostics{
		plan.GetAttribute(ctx, path.Root("hosts"), &planned), state.GetAttribute(ctx, path.Root("host_status"), &prior),
		plan.GetAttribute(ctx, path.Root("running"), &running), plan.GetAttribute(ctx, path.Root("managed"), &managed),
	} {
		if d.HasError() {
			return
		}
	}
	if planned.IsUnknown() || running.IsUnknown() || managed.IsUnknown() {
		return
	}
	var drifted []string
	for _, h := range planned.Hosts() {
		e, ok := prior.Entries[h.StatusKey()]
		if !ok {
			continue // joining, or never read: not drift
		}
		var off []string
		if f := e.Fact(); !running.IsNull() && f.Running != nil && !f.RunSettled(running.ValueBool()) {
			off = append(off, e.Status.ValueString())
		}
		if f := e.Fact(); !managed.IsNull() && f.Managed != nil && !f.HostingSettled(managed.ValueBool()) {
			off = append(off, map[bool]string{true: "hosted", false: "not hosted"}[e.Managed.ValueBool()])
		}
		if len(off) > 0 {
			drifted = append(drifted, h.StatusKey()+" ("+strings.Join(off, ", ")+")")
		}
	}
	if len(drifted) == 0 {
		return
	}
	diags.AddAttributeWarning(path.Root("host_status"), plumbing.HostCount(len(drifted))+" drifted",
		fmt.Sprintf("GSE reports the process out of its planned state on: %s.\nThe apply acts on these hosts only (in rollout batches of them), "+
			"and leaves the others as they are.", hostNames(drifted)))
}

// hostNames lists hosts for a warning, the first 20 of them.
func hostNames(names []string) string {
	const most = 20
	out := names[:min(len(names), most)]
	if len(names) > most {
		out = append(out[:most:most], fmt.Sprintf("and %d more", len(names)-most))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// gsekitNamespace is the prefix of the namespaces GSEKit and bk-bscp run
// their processes in (GSEKIT_BIZ_{bk_biz_id}).
const gsekitNamespace = "GSEKIT_BIZ_"

// sayGSEKitNamespace warns, when a process is created in a namespace of
// GSEKit or bk-bscp, that two controllers then manage it.
func sayGSEKitNamespace(ctx context.Context, plan tfsdk.Plan, diags *diag.Diagnostics) {
	var ns types.String
	if plan.GetAttribute(ctx, path.Root("meta").AtName("namespace"), &ns).HasError() || !strings.HasPrefix(ns.ValueString(), gsekitNamespace) {
		return
	}
	diags.AddAttributeWarning(path.Root("meta").AtName("namespace"), "Namespace of GSEKit and bk-bscp",
		fmt.Sprintf("%s is where GSEKit and bk-bscp run the business's processes. Managed here too, two controllers act on them: "+
			"a stop or restart from GSEKit shows as drift here, and the next apply undoes it. Stop operating these processes from GSEKit "+
			"once Terraform manages them, or give gse_cmdb_processes a namespace of its own.", ns.ValueString()))
}
