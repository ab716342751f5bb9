package status

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// Proved is host_status of list after an apply: the facts its tasks proved
// (proved, such as lifecycle.Proven.Of) on the hosts they touched, a fact no
// task proved being null until Applied reads it; the hosts the apply did not
// touch keep their prior entry (prior is null on create), or have one of
// nulls.
func Proved(list []hosts.Pair, prior HostStatus, proved func(gse.Host) (Fact, bool)) HostStatus {
	entries := make(map[string]HostEntry, len(list))
	for _, h := range list {
		k := h.StatusKey()
		f, touched := proved(h.Host())
		old, known := prior.Entries[k]
		switch {
		case !touched && known:
			entries[k] = old
		case !touched:
			entries[k] = HostEntry{} // all null
		default:
			entries[k] = f.Entry()
		}
	}
	return NewHostStatus(entries)
}

// Applied is host_status of list after an apply that succeeded: what its
// tasks proved (proved, see Proved: a start proves running and hosted, a stop
// stopped and unhosted), and for the hosts where they proved nothing (a host
// op says nothing of the run state, a one-shot start nothing either; a
// register nothing at all) what get_proc_status_v2 reads. So the state holds
// what the next refresh reads, and `plan -refresh-only` right after an apply
// reports no change, without a status read after the usual create or update.
// When that read fails, the apply still stands: the proven facts are
// recorded, with a warning, and the next refresh reads the rest.
func Applied(ctx context.Context, c *gse.Client, meta gse.Meta, list []hosts.Pair, proved HostStatus, diags *diag.Diagnostics) HostStatus {
	var read []hosts.Pair
	for _, h := range list {
		if e := proved.Entries[h.StatusKey()]; e.Status.IsNull() || e.Managed.IsNull() {
			read = append(read, h)
		}
	}
	if len(read) == 0 {
		return proved
	}
	found, err := Find(ctx, c, meta, plumbing.Each(read, hosts.Pair.Host))
	if err != nil {
		diags.AddWarning(fmt.Sprintf("Status of process %s not read after the apply", meta),
			fmt.Sprintf("The apply succeeded; reading the status of the hosts where its tasks proved no run state or hosting (get_proc_status_v2) failed: %v. "+
				"host_status records what the apply's tasks proved, and the next refresh reads the rest.", err))
		return proved
	}
	entries := maps.Clone(proved.Entries)
	maps.Copy(entries, Observed{Found: found}.HostStatus(read, HostStatus{}).Entries) // a host not found keeps what its tasks proved
	return NewHostStatus(entries)
}

// Updated is host_status after an update that succeeded: the entries the
// plan knew (planned), as Terraform requires, and the others read (Applied).
func Updated(planned, read HostStatus) HostStatus {
	entries := make(map[string]HostEntry, len(read.Entries))
	for k, e := range read.Entries {
		if p, ok := planned.Entries[k]; ok && !p.Status.IsUnknown() {
			e = p
		}
		entries[k] = e
	}
	return NewHostStatus(entries)
}
