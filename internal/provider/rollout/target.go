package rollout

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Target is one entry of a batch: a host, a file on a host, a JOB process's IP.
type Target interface {
	// Key is the target's identity: a step's per-target outcomes and
	// wait_running's answers name targets by it.
	Key() string
	// String names the target as the configuration gives it, in the
	// rollout's report.
	String() string
}

// Place is where a target stands in the rollout order (order): targets with
// an IP by bk_cloud_id, then by IP; targets known only by an ID after them,
// by ID.
type Place struct {
	Cloud int64
	IP    string // "" for a target known only by ID
	ID    string // the agent id (or another id) of a target without IP
}

// HostPlace places a host by its address, or by its agent id when it has none.
func HostPlace(h gse.Host) Place { return Place{Cloud: h.BkCloudID, IP: h.IP, ID: h.AgentID} }

// JobIPPlace places a JOB IP as the host it is.
func JobIPPlace(ip gse.JobIP) Place { return HostPlace(ip.Host()) }

// order sorts targets by their place: bk_cloud_id, then IP (as addresses,
// so 10.0.0.2 comes before 10.0.0.10); targets without an IP come last, by
// ID. The order depends on the targets alone, so a rerun after a failure
// meets the untouched targets last again. Addresses are parsed once, not per
// comparison.
func order[T Target](targets []T, place func(T) Place) []T {
	type sortKey struct {
		target T
		place  Place
		addr   netip.Addr
		parsed bool
	}
	keys := make([]sortKey, len(targets))
	for i, t := range targets {
		p := place(t)
		a, err := netip.ParseAddr(p.IP)
		keys[i] = sortKey{target: t, place: p, addr: a.Unmap(), parsed: err == nil}
	}
	slices.SortStableFunc(keys, func(a, b sortKey) int {
		if c := cmp.Compare(boolInt(a.place.IP == ""), boolInt(b.place.IP == "")); c != 0 {
			return c
		}
		if a.place.IP == "" {
			return strings.Compare(a.place.ID, b.place.ID)
		}
		if c := cmp.Compare(a.place.Cloud, b.place.Cloud); c != 0 {
			return c
		}
		if a.parsed && b.parsed {
			return a.addr.Compare(b.addr)
		}
		return strings.Compare(a.place.IP, b.place.IP)
	})
	out := make([]T, len(keys))
	for i, k := range keys {
		out[i] = k.target
	}
	return out
}

// OrderHosts is hosts in the rollout order every rollout takes them in.
func OrderHosts(hosts []gse.Host) []gse.Host { return order(hosts, HostPlace) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
