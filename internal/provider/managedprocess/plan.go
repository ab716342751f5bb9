package managedprocess

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
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
	names := func(hs []hosts.Model) string {
		const most = 20
		out := plumbing.Each(hs[:min(len(hs), most)], statusKey)
		if len(hs) > most {
			out = append(out, fmt.Sprintf("and %d more", len(hs)-most))
		}
		if len(out) == 0 {
			return "none"
		}
		return strings.Join(out, ", ")
	}
	diags.AddAttributeWarning(path.Root("hosts"), fmt.Sprintf("%d hosts leave, %d join", len(removed), len(added)),
		fmt.Sprintf("Leaving (the process is removed there): %s.\nJoining (the process is registered there): %s.\n"+
			"Terraform shows the change of hosts position by position, so a host leaving and another joining at the same position "+
			"reads as a change of its ip or bk_cloud_id above; no host changes address.", names(removed), names(added)))
}
