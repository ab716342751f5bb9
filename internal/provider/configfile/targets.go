package configfile

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
)

// target is one host the file goes to: its key in host_status (as
// gse_managed_process keys it, hosts.Model.StatusKey, or host:{bk_host_id}),
// the host as the client addresses it, and how JOB addresses it.
type target struct {
	key    string
	host   gse.Host  // as hosts expands it; zero for a host of bk_host_ids
	hostID int64     // 0 until resolved, when given by ip
	ip     gse.JobIP // IPv4 and cloud, when given so
}

// Key is the host's key in host_status: the rollout of the push knows it by it.
func (t target) Key() string { return t.key }

// identity is the host t is, as byHost indexes a prior host_status.
func (t target) identity() string { return hostIdentity(t.key) }

// String names the host as the configuration gives it: as hosts does, or by bk_host_id.
func (t target) String() string {
	if t.host == (gse.Host{}) {
		return "bk_host_id " + strconv.FormatInt(t.hostID, 10)
	}
	return t.host.String()
}

// place orders the push as every rollout orders hosts (rollout.HostPlace);
// hosts of bk_host_ids by their key.
func (t target) place() rollout.Place {
	if t.host == (gse.Host{}) {
		return rollout.Place{ID: t.key}
	}
	return rollout.HostPlace(t.host)
}

// hostIDKey is the host_status key of a host given by bk_host_id.
func hostIDKey(id int64) string { return "host:" + strconv.FormatInt(id, 10) }

// hostIdentity is the host a host_status key names, in any spelling: the key
// read as an agent address (gse.Host.Key: {bk_cloud_id}:{ip} with the IP in
// canonical form, unmapped; an agent id in lower case). host:{bk_host_id} is
// no address and names its host as it is.
func hostIdentity(key string) string {
	if strings.HasPrefix(key, "host:") {
		return key
	}
	return gse.Host{AgentID: key}.Key()
}

// targetsOf lists the hosts of the configuration: hosts, or bk_host_ids.
func targetsOf(hs []hosts.Pair, ids []int64) []target {
	var out []target
	for _, h := range hs {
		g := h.Host()
		t := target{key: h.StatusKey(), host: g}
		if g.AgentID == "" {
			t.ip = g.JobIP()
		}
		out = append(out, t)
	}
	for _, id := range ids {
		out = append(out, target{key: hostIDKey(id), hostID: id})
	}
	return out
}

// needIDs reports whether JOB must be given host ids: JOB v3 has no agent-id
// target, ip_list is IPv4 only, and when host_id_list is sent ip_list is
// ignored, so one host that needs an id makes every host go by id.
func needIDs(ts []target) bool {
	for _, t := range ts {
		if t.hostID != 0 || t.ip.IP == "" || strings.Contains(t.ip.IP, ":") {
			return true
		}
	}
	return false
}

// resolve fills the host ids of ts from CMDB where JOB needs them: agent
// ids by bk_agent_id, addresses by the first IPv4 (or the IPv6) address and
// cloud of the business's hosts. A host CMDB does not know is an error
// naming it.
func resolve(ctx context.Context, c *gse.Client, biz int64, ts []target) error {
	// One listing of the hosts in question: by agent id, IPv4, IPv6 (each
	// field takes only its own kind of value: CMDB fails an IPv6 rule on
	// anything else with 1110001).
	values := map[string][]any{}
	for _, t := range ts {
		switch {
		case t.hostID != 0:
		case t.ip.IP == "":
			values["bk_agent_id"] = append(values["bk_agent_id"], t.host.AgentID)
		case strings.Contains(t.ip.IP, ":"):
			values["bk_host_innerip_v6"] = append(values["bk_host_innerip_v6"], t.ip.IP)
		default:
			values["bk_host_innerip"] = append(values["bk_host_innerip"], t.ip.IP)
		}
	}
	var rules []gse.HostRule
	for _, field := range []string{"bk_agent_id", "bk_host_innerip", "bk_host_innerip_v6"} {
		if len(values[field]) > 0 {
			rules = append(rules, gse.HostRule{Field: field, Operator: "in", Value: values[field]})
		}
	}
	if len(rules) == 0 {
		return nil
	}
	found, err := c.CMDB.ListBizHosts(ctx, gse.HostQuery{BizID: biz, Filter: &gse.HostFilter{Condition: "OR", Rules: rules}})
	if err != nil {
		return err
	}
	byKey := map[string]int64{} // by the address the client sends a host by
	for _, h := range found {
		if h.AgentID != "" {
			byKey[h.AgentID] = h.BkHostID
		}
		for _, ip := range append(strings.Split(h.InnerIP, ","), h.FirstIPv6()) {
			if ip = strings.TrimSpace(ip); ip != "" {
				byKey[gse.Host{IP: ip, BkCloudID: h.BkCloudID}.Address()] = h.BkHostID
			}
		}
	}
	var missing []string
	for i, t := range ts {
		if t.hostID != 0 {
			continue
		}
		id, ok := byKey[t.host.Address()]
		if !ok {
			missing = append(missing, t.host.Address())
			continue
		}
		ts[i].hostID = id
	}
	if len(missing) > 0 {
		return fmt.Errorf("these hosts are not hosts of business %d in CMDB, which JOB needs to address them by bk_host_id: %s", biz, strings.Join(missing, ", "))
	}
	return nil
}

// jobTargets is how JOB is given ts.
func jobTargets(ts []target, byID bool) gse.JobTargets {
	var out gse.JobTargets
	for _, t := range ts {
		if byID {
			out.HostIDs = append(out.HostIDs, t.hostID)
		} else {
			out.IPs = append(out.IPs, t.ip)
		}
	}
	return out
}
