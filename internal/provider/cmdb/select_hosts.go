package cmdb

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
)

// hostSelection is what gse_cmdb_hosts makes of CMDB's hosts.
type hostSelection struct {
	hosts, ipList, ids types.List
	skipped            []skippedHost
}

type skippedHost struct {
	id     int64
	reason string
}

// hostAddress is how a CMDB host is addressed: its first IPv4 address,
// else its IPv6 one (short form); reason says why it cannot be ("" when it can).
func hostAddress(h gse.CMDBHost, gateway bool) (ip, reason string) {
	ip = h.FirstIPv4()
	if ip == "" {
		ip = h.FirstIPv6()
	}
	switch {
	case ip == "":
		return "", "no IPv4 or IPv6 address"
	case !gateway && h.FirstIPv4() == "": // GSE 1.0 through ESB cannot address IPv6
		return ip, "only an IPv6 address"
	}
	return ip, ""
}

// hostObject is h as an element of gse_managed_process.hosts: by agent id
// through the gateway where CMDB has one, else by ip (hostAddress) and cloud.
func hostObject(h gse.CMDBHost, ip string, gateway bool) attr.Value {
	el := map[string]attr.Value{"ip": types.StringValue(ip), "bk_cloud_id": types.Int64Value(h.BkCloudID), "bk_supplier_id": types.Int64Value(0), "agent_id": types.StringNull()}
	if byAgentID(h, gateway) {
		el["ip"], el["bk_cloud_id"], el["agent_id"] = types.StringNull(), types.Int64Null(), types.StringValue(h.AgentID)
	}
	return types.ObjectValueMust(hosts.ObjectType.AttrTypes, el)
}

func byAgentID(h gse.CMDBHost, gateway bool) bool { return gateway && h.AgentID != "" }

// hostKey is the host_status key of h's hostObject (hosts.Model.StatusKey):
// its agent id, or {bk_cloud_id}:{ip}.
func hostKey(h gse.CMDBHost, ip string, gateway bool) string {
	if byAgentID(h, gateway) {
		return gse.Host{AgentID: h.AgentID}.Address()
	}
	return gse.Host{IP: ip, BkCloudID: h.BkCloudID}.Address()
}

// selectHosts turns CMDB hosts into elements of gse_managed_process.hosts
// (hostObject) and of a JOB ip_list, in CMDB's order. A host without an
// address the mode can use, or already listed, is skipped.
func selectHosts(found []gse.CMDBHost, gateway bool) hostSelection {
	objects := make([]attr.Value, 0, len(found))
	ipList := make([]attr.Value, 0, len(found))
	ids := make([]attr.Value, 0, len(found))
	var skipped []skippedHost
	seen := make(map[string]int64, len(found))
	for _, h := range found {
		ip, reason := hostAddress(h, gateway)
		if ip == "" {
			skipped = append(skipped, skippedHost{h.BkHostID, reason})
			continue
		}
		key := gse.JobIP{BkCloudID: h.BkCloudID, IP: ip}.Key()
		if first, dup := seen[key]; dup {
			skipped = append(skipped, skippedHost{h.BkHostID, fmt.Sprintf("the same address as bk_host_id %d", first)})
			continue
		}
		seen[key] = h.BkHostID
		ipList = append(ipList, types.ObjectValueMust(hosts.JobIPObjectType.AttrTypes, map[string]attr.Value{"ip": types.StringValue(ip), "bk_cloud_id": types.Int64Value(h.BkCloudID)}))
		if reason != "" { // an address in ip_list, but none hosts can use in this mode
			skipped = append(skipped, skippedHost{h.BkHostID, reason})
			continue
		}
		objects = append(objects, hostObject(h, ip, gateway))
		ids = append(ids, types.Int64Value(h.BkHostID))
	}
	return hostSelection{
		hosts:   types.ListValueMust(hosts.ObjectType, objects),
		ipList:  types.ListValueMust(hosts.JobIPObjectType, ipList),
		ids:     types.ListValueMust(types.Int64Type, ids),
		skipped: skipped,
	}
}

func (s hostSelection) skippedIDs() types.List {
	ids := make([]attr.Value, len(s.skipped))
	for i, h := range s.skipped {
		ids[i] = types.Int64Value(h.id)
	}
	return types.ListValueMust(types.Int64Type, ids)
}

// skippedWarning names the hosts left out of hosts and why ("" when none).
func (s hostSelection) skippedWarning(gateway bool) string {
	if len(s.skipped) == 0 {
		return ""
	}
	lines := make([]string, len(s.skipped))
	for i, h := range s.skipped {
		lines[i] = fmt.Sprintf("bk_host_id %d: %s", h.id, h.reason)
	}
	return "These hosts are not in hosts:\n" + joinReasons(lines, 20, "... and %d more (every id is in skipped_host_ids)") + "\n\n" + addressAdvice(gateway)
}

// addressAdvice says what to do about hosts without an address this mode can use.
func addressAdvice(gateway bool) string {
	advice := "Give these hosts an address in CMDB, or leave them out on purpose with bk_module_ids or filter."
	if !gateway {
		advice = "GSE 1.0 APIs through ESB address hosts by IPv4 only: set the provider's gateway_url (GSE 2.0) to manage IPv6-only hosts. " + advice
	}
	return advice
}
