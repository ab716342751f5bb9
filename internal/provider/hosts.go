package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// hostModel is one element of gse_managed_process.hosts.
type hostModel struct {
	IP           types.String `tfsdk:"ip"`
	BkCloudID    types.Int64  `tfsdk:"bk_cloud_id"`
	BkSupplierID types.Int64  `tfsdk:"bk_supplier_id"`
}

func (h hostModel) api() gse.Host {
	return gse.Host{IP: h.IP.ValueString(), BkCloudID: h.BkCloudID.ValueInt64(), BkSupplierID: h.BkSupplierID.ValueInt64()}
}

func apiHosts(hs []hostModel) []gse.Host {
	out := make([]gse.Host, len(hs))
	for i, h := range hs {
		out[i] = h.api()
	}
	return out
}

// diffBy splits items into those only in prior, only in plan, and in both, comparing their keys.
func diffBy[T any, K comparable](prior, plan []T, key func(T) K) (removed, added, kept []T) {
	inPrior, inPlan := map[K]bool{}, map[K]bool{}
	for _, x := range prior {
		inPrior[key(x)] = true
	}
	for _, x := range plan {
		inPlan[key(x)] = true
		if inPrior[key(x)] {
			kept = append(kept, x)
		} else {
			added = append(added, x)
		}
	}
	for _, x := range prior {
		if !inPlan[key(x)] {
			removed = append(removed, x)
		}
	}
	return removed, added, kept
}

// selectBy keeps the items whose key is among keys (keep) or is not (!keep).
func selectBy[T any, K comparable](items []T, key func(T) K, keys []K, keep bool) []T {
	in := make(map[K]bool, len(keys))
	for _, k := range keys {
		in[k] = true
	}
	var out []T
	for _, x := range items {
		if in[key(x)] == keep {
			out = append(out, x)
		}
	}
	return out
}

// statusName names GSE's process states (flag and status).
func statusName(s int) string {
	switch s {
	case gse.StateUnregistered:
		return "unregistered"
	case gse.StateRunning:
		return "running"
	case gse.StateStopped:
		return "stopped"
	}
	return fmt.Sprintf("unknown (%d)", s)
}

// statusByAddr indexes status entries of registered processes by host.
func statusByAddr(entries []gse.ProcStatus) map[string]gse.ProcStatus {
	out := make(map[string]gse.ProcStatus, len(entries))
	for _, e := range entries {
		if e.Status != gse.StateUnregistered {
			out[e.Host.Addr()] = e
		}
	}
	return out
}

// uniqueHosts rejects two hosts with the same cloud id and IP (in any spelling):
// GSE addresses a process on a host by those two alone.
type uniqueHosts struct{}

func (uniqueHosts) Description(context.Context) string {
	return "hosts must differ in bk_cloud_id or ip"
}
func (v uniqueHosts) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (uniqueHosts) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	seen := map[string]bool{}
	for _, el := range req.ConfigValue.Elements() {
		obj, ok := el.(types.Object)
		if !ok || obj.IsUnknown() {
			continue
		}
		ip, _ := obj.Attributes()["ip"].(types.String)
		cloud, _ := obj.Attributes()["bk_cloud_id"].(types.Int64)
		if ip.IsUnknown() || cloud.IsUnknown() {
			continue
		}
		h := gse.Host{IP: ip.ValueString(), BkCloudID: cloud.ValueInt64()}
		if seen[h.Addr()] {
			resp.Diagnostics.AddAttributeError(req.Path, "Duplicate host",
				fmt.Sprintf("%s lists %s more than once; each bk_cloud_id and ip pair may appear once.", req.Path, h))
		}
		seen[h.Addr()] = true
	}
}
