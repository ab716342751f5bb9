package hosts

import (
	"cmp"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// The typed models of host objects, their conversion to the client's host
// types, and the known values of a host object before it has a model.

// GSERef is a host of a GSE process without bk_supplier_id: one the
// status data source reads or an operation targets.
type GSERef struct {
	IP        types.String `tfsdk:"ip"`
	BkCloudID types.Int64  `tfsdk:"bk_cloud_id"`
	AgentID   types.String `tfsdk:"agent_id"`
}

// Expand is the host as GSE addresses it (see Model.Expand).
func (m GSERef) Expand() gse.Host {
	return gse.Host{IP: unmapIP(m.IP.ValueString()), BkCloudID: m.BkCloudID.ValueInt64(), AgentID: agentAddress(m.AgentID.ValueString())}
}

// Ref is a host by ip and bk_cloud_id, the one host type of every
// schema without bk_supplier_id: an element of a JOB ip_list, and a host the
// status data sources or an operation read.
type Ref struct {
	IP        types.String `tfsdk:"ip"`
	BkCloudID types.Int64  `tfsdk:"bk_cloud_id"`
}

// Expand is the host as JOB addresses it.
func (m Ref) Expand() gse.JobIP {
	return gse.JobIP{BkCloudID: m.BkCloudID.ValueInt64(), IP: m.IP.ValueString()}
}

// Model is one element of gse_managed_process.hosts: by ip and
// bk_cloud_id, or by agent_id (then ip and bk_cloud_id are null).
type Model struct {
	IP           types.String `tfsdk:"ip"`
	BkCloudID    types.Int64  `tfsdk:"bk_cloud_id"`
	BkSupplierID types.Int64  `tfsdk:"bk_supplier_id"`
	AgentID      types.String `tfsdk:"agent_id"`
}

// Expand converts the host as GSE addresses it: an IPv4-mapped IPv6 address
// (::ffff:10.0.0.1) is sent as the IPv4 address it stands for.
func (h Model) Expand() gse.Host {
	return gse.Host{IP: unmapIP(h.IP.ValueString()), BkCloudID: h.BkCloudID.ValueInt64(), BkSupplierID: h.BkSupplierID.ValueInt64(), AgentID: agentAddress(h.AgentID.ValueString())}
}

// StatusKey is the host's key in host_status, in every family: its address
// as written (gse.Host.Address of the host not expanded: {bk_cloud_id}:{ip},
// or the agent id of a host given by one), not its identity (gse.Host.Key),
// so the keys of existing gse_managed_process states stay.
func (h Model) StatusKey() string {
	return gse.Host{IP: h.IP.ValueString(), BkCloudID: h.BkCloudID.ValueInt64(), AgentID: h.AgentID.ValueString()}.Address()
}

// agentAddress is an agent id as sent to GSE: a {bk_cloud_id}:{ip} one with
// the cloud id in decimal and an IPv4-mapped address unmapped (as unmapIP),
// any other as written.
func agentAddress(id string) string {
	if cloud, ip, ok := CloudIPAgent(id); ok {
		return gse.Host{IP: unmapIP(ip), BkCloudID: cloud}.Address()
	}
	return id
}

// unmapIP turns ::ffff:a.b.c.d into a.b.c.d and leaves any other spelling alone.
func unmapIP(ip string) string {
	if a, err := netip.ParseAddr(ip); err == nil && a.Is4In6() {
		return a.Unmap().String()
	}
	return ip
}

// Compare is the one order of hosts in what the provider lists (status
// entries of the data sources): by bk_cloud_id, then by ip as written.
func Compare(cloudA int64, ipA string, cloudB int64, ipB string) int {
	return cmp.Or(cmp.Compare(cloudA, cloudB), strings.Compare(ipA, ipB))
}

// CompareByAddress orders hosts as the provider lists them: hosts by agent id
// first, ordered by it, then hosts by ip as Compare does.
func CompareByAddress(a, b gse.Host) int {
	if byAgent := a.AgentID != ""; byAgent != (b.AgentID != "") {
		return map[bool]int{true: -1, false: 1}[byAgent]
	}
	return cmp.Or(strings.Compare(a.AgentID, b.AgentID), Compare(a.BkCloudID, a.IP, b.BkCloudID, b.IP))
}

// knownHost is a host object whose form and values are known: by agentID,
// or by ip and cloud.
type knownHost struct {
	IP, AgentID string
	cloud       int64
	supplier    types.Int64
}

// expand is the host as written (its Key is the same in any spelling).
func (h knownHost) expand() gse.Host {
	return gse.Host{IP: h.IP, BkCloudID: h.cloud, AgentID: h.AgentID}
}

// planKey is what makes two hosts elements plan alike: the host in any
// spelling or form (gse.Host.Key) and its supplier id, 0 when unset
// (ValueInt64 of a null).
func (h knownHost) planKey() string {
	return fmt.Sprintf("%s/%d", h.expand().Key(), h.supplier.ValueInt64())
}

// known reads a host whose form and values are known; ok is false when its
// ip, bk_cloud_id or agent_id is not known yet, or neither form is complete.
func (m Model) known() (h knownHost, ok bool) {
	h.supplier = m.BkSupplierID
	if m.IP.IsUnknown() || m.BkCloudID.IsUnknown() || m.AgentID.IsUnknown() {
		return h, false
	}
	if !m.AgentID.IsNull() {
		h.AgentID = m.AgentID.ValueString()
		return h, true
	}
	if m.IP.IsNull() || m.BkCloudID.IsNull() {
		return h, false
	}
	h.IP, h.cloud = m.IP.ValueString(), m.BkCloudID.ValueInt64()
	return h, true
}

// Fields reads one host object of any host schema as Model.known
// does; an attribute the schema lacks is null.
func Fields(v attr.Value) (h knownHost, ok bool) {
	obj, isObj := v.(types.Object)
	if !isObj || obj.IsNull() || obj.IsUnknown() {
		return h, false
	}
	a := obj.Attributes()
	var m Model
	m.IP, _ = a["ip"].(types.String)
	m.BkCloudID, _ = a["bk_cloud_id"].(types.Int64)
	m.AgentID, _ = a["agent_id"].(types.String)
	m.BkSupplierID, _ = a["bk_supplier_id"].(types.Int64)
	return m.known()
}

// CloudIPAgent splits an agent id of the {bk_cloud_id}:{ip} form.
func CloudIPAgent(id string) (int64, string, bool) {
	c, ip, ok := strings.Cut(id, ":")
	if !ok {
		return 0, "", false
	}
	cloud, err := strconv.ParseInt(c, 10, 64)
	if a, ipErr := netip.ParseAddr(ip); err != nil || cloud < 0 || ipErr != nil || a.Zone() != "" {
		return 0, "", false
	}
	return cloud, ip, true
}
