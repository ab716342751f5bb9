package hosts

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// importHost is one host of the host list of an import ID.
type importHost struct {
	Cloud, Supplier int64
	IP              string
}

// ParseImport reads the host list of an import ID: comma-separated items
// bk_cloud_id:ip, or bk_cloud_id:bk_supplier_id:ip withSupplier. The IP comes
// last because an IPv6 address holds ':'. It must parse without a zone, the ids
// must be 0 or more, and no host may appear twice in any spelling (by
// gse.JobIP.Key, as the hosts validators judge a configuration).
// noun names an item in errors ("host", "IP").
func ParseImport(list string, withSupplier bool, noun string) ([]importHost, error) {
	format, ids := "bk_cloud_id:ip", "bk_cloud_id must be a non-negative integer"
	if withSupplier {
		format, ids = "bk_cloud_id:bk_supplier_id:ip", "bk_cloud_id and bk_supplier_id must be non-negative integers"
	}
	n := strings.Count(format, ":") + 1
	var out []importHost
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		parts := strings.SplitN(item, ":", n)
		if len(parts) != n {
			return nil, fmt.Errorf("%s %q is not %s", noun, item, format)
		}
		var nums [2]int64
		for i, s := range parts[:n-1] {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("%s %q is not %s: %s", noun, item, format, ids)
			}
			nums[i] = v
		}
		h := importHost{Cloud: nums[0], Supplier: nums[1], IP: parts[n-1]}
		if a, err := netip.ParseAddr(h.IP); err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("%s %q: %q is not an IP address without zone", noun, item, h.IP)
		}
		id := gse.JobIP{BkCloudID: h.Cloud, IP: h.IP}.Key()
		if seen[id] {
			return nil, fmt.Errorf("%s %q is listed twice", noun, item)
		}
		seen[id] = true
		out = append(out, h)
	}
	return out, nil
}
