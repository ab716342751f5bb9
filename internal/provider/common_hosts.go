package provider

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Hosts are a list of plain objects: no per-element validators, defaults or
// plan modifiers. One list-level validator checks every element, and one
// list-level plan modifier makes the order irrelevant and fills
// bk_supplier_id. For the framework, gse_managed_process.hosts is a plain list
// of objects, which it does not walk element by element (a nested list costs
// it the square of the hosts in v1.19: listElemObject copies the list per
// element); Terraform still sees a list nested attribute with its per-element
// schema (nestedHosts), and the values are the same on the wire.

// The ip and bk_cloud_id of a host mean the same in every schema.
const (
	hostIPDesc    = "IPv4 or IPv6 address of the host, without a zone (`%eth0`)."
	hostCloudDesc = "Cloud area (管控区域) id of the host, `0` or more; `0` is the default area."
	// The hosts of GSE processes may instead be given by agent id (GSE 2.0).
	gseHostIPDesc    = hostIPDesc + " Set it with `bk_cloud_id`, or set `agent_id` instead. An IPv6 host needs the provider's `gateway_url` (GSE 1.0 APIs cannot address IPv6)."
	gseHostCloudDesc = hostCloudDesc + " Required with `ip`; unset with `agent_id`."
	hostSupplierDesc = "Developer (supplier) id of the host, used by the v1 register APIs; 0 or more. Defaults to `0`."
	hostAgentDesc    = "GSE 2.0 agent id of the host, instead of `ip` and `bk_cloud_id`: 36 hex characters (such as `0200000007525400f355781710390005465c`), " +
		"or `{bk_cloud_id}:{ip}` where agent-id mode is off; at most 64 characters. Needs the provider's `gateway_url`. " +
		"The same host given by `{bk_cloud_id}:{ip}` and by `ip` is rejected as a duplicate."
)

// hostsSchema is gse_managed_process.hosts as the framework sees it: packed
// (common_hosts_packed.go); hostsNestedType is the same attribute as Terraform
// sees it.
func hostsSchema(desc string) schema.StringAttribute {
	return schema.StringAttribute{
		Required: true, CustomType: hostListType{}, MarkdownDescription: desc,
		Validators:    []validator.String{hostsValidator{}},
		PlanModifiers: []planmodifier.String{hostsPlan{}},
	}
}

// hostRefResourceAttributes are the ip and bk_cloud_id of a host in a resource schema.
func hostRefResourceAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"ip":          schema.StringAttribute{Required: true, MarkdownDescription: hostIPDesc},
		"bk_cloud_id": schema.Int64Attribute{Required: true, MarkdownDescription: hostCloudDesc},
	}
}

// gseHostRefAttributes are the attributes of a host of a GSE process that a
// data source reads: by ip and bk_cloud_id, or by agent_id.
func gseHostRefAttributes() map[string]dschema.Attribute {
	return map[string]dschema.Attribute{
		"ip":          dschema.StringAttribute{Optional: true, MarkdownDescription: gseHostIPDesc},
		"bk_cloud_id": dschema.Int64Attribute{Optional: true, MarkdownDescription: gseHostCloudDesc},
		"agent_id":    dschema.StringAttribute{Optional: true, MarkdownDescription: hostAgentDesc},
	}
}

// gseHostRefSetAttribute is hostRefSetAttribute for the hosts of a GSE
// process (the GSE target of gse_process_operation): agent_id besides ip and bk_cloud_id.
func gseHostRefSetAttribute(desc string) schema.SetNestedAttribute {
	return schema.SetNestedAttribute{
		Required: true, MarkdownDescription: desc + " Each host may appear once, by `agent_id` or by `bk_cloud_id` and IP.",
		Validators: []validator.Set{setvalidator.SizeAtLeast(1), hostRefsValidator{}},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"ip":          schema.StringAttribute{Optional: true, MarkdownDescription: gseHostIPDesc},
			"bk_cloud_id": schema.Int64Attribute{Optional: true, MarkdownDescription: gseHostCloudDesc},
			"agent_id":    schema.StringAttribute{Optional: true, MarkdownDescription: hostAgentDesc},
		}},
	}
}

// gseHostRefModel is a host of a GSE process without bk_supplier_id: one the
// status data source reads or an operation targets.
type gseHostRefModel struct {
	IP        types.String `tfsdk:"ip"`
	BkCloudID types.Int64  `tfsdk:"bk_cloud_id"`
	AgentID   types.String `tfsdk:"agent_id"`
}

// api is the host as GSE addresses it (see hostModel.api).
func (m gseHostRefModel) api() gse.Host {
	return gse.Host{IP: unmapIP(m.IP.ValueString()), BkCloudID: m.BkCloudID.ValueInt64(), AgentID: agentAddress(m.AgentID.ValueString())}
}

// hostRefSetAttribute is a set of hosts by ip and bk_cloud_id: the hosts of a
// GSE target and the ip_list of a JOB process in gse_process_operation, whose
// every input replaces the resource, so the order needs no plan modifier.
func hostRefSetAttribute(desc string) schema.SetNestedAttribute {
	return schema.SetNestedAttribute{
		Required: true, MarkdownDescription: desc + " Each `bk_cloud_id` and IP pair may appear once.",
		Validators:   []validator.Set{setvalidator.SizeAtLeast(1), hostRefsValidator{}},
		NestedObject: schema.NestedAttributeObject{Attributes: hostRefResourceAttributes()},
	}
}

// hostRefModel is a host by ip and bk_cloud_id, the one host type of every
// schema without bk_supplier_id: an element of a JOB ip_list, and a host the
// status data sources or an operation read.
type hostRefModel struct {
	IP        types.String `tfsdk:"ip"`
	BkCloudID types.Int64  `tfsdk:"bk_cloud_id"`
}

// api is the host as JOB addresses it.
func (m hostRefModel) api() gse.JobIP {
	return gse.JobIP{BkCloudID: m.BkCloudID.ValueInt64(), IP: m.IP.ValueString()}
}

// key is the host's identity (gse.JobIP.Key).
func (m hostRefModel) key() string { return m.api().Key() }

// hostModel is one element of gse_managed_process.hosts: by ip and
// bk_cloud_id, or by agent_id (then ip and bk_cloud_id are null).
type hostModel struct {
	IP           types.String `tfsdk:"ip"`
	BkCloudID    types.Int64  `tfsdk:"bk_cloud_id"`
	BkSupplierID types.Int64  `tfsdk:"bk_supplier_id"`
	AgentID      types.String `tfsdk:"agent_id"`
}

// api converts the host as GSE addresses it: an IPv4-mapped IPv6 address
// (::ffff:10.0.0.1) is sent as the IPv4 address it stands for.
func (h hostModel) api() gse.Host {
	return gse.Host{IP: unmapIP(h.IP.ValueString()), BkCloudID: h.BkCloudID.ValueInt64(), BkSupplierID: h.BkSupplierID.ValueInt64(), AgentID: agentAddress(h.AgentID.ValueString())}
}

// agentAddress is an agent id as sent to GSE: a {bk_cloud_id}:{ip} one with
// the cloud id in decimal and an IPv4-mapped address unmapped (as unmapIP),
// any other as written.
func agentAddress(id string) string {
	if cloud, ip, ok := cloudIPAgent(id); ok {
		return fmt.Sprintf("%d:%s", cloud, unmapIP(ip))
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

// hostIdentity is the identity of the host at ip in cloud (gse.Host.Key), so
// 10.0.0.1, ::ffff:10.0.0.1 and (for IPv6) any letter case are one host.
func hostIdentity(cloud int64, ip string) string { return gse.Host{IP: ip, BkCloudID: cloud}.Key() }

// compareHosts is the one order of hosts in what the provider lists (status
// entries of the data sources): by bk_cloud_id, then by ip as written.
func compareHosts(cloudA int64, ipA string, cloudB int64, ipB string) int {
	return cmp.Or(cmp.Compare(cloudA, cloudB), strings.Compare(ipA, ipB))
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

// each is f of every item, in order: how hosts change form (gse.JobIP.Host,
// gse.Host.JobIP, hostModel.api) or become keys (gse.Host.Key).
func each[T, U any](items []T, f func(T) U) []U {
	out := make([]U, len(items))
	for i, x := range items {
		out[i] = f(x)
	}
	return out
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

// knownHost is a host object whose form and values are known: by agentID,
// or by ip and cloud.
type knownHost struct {
	ip, agentID string
	cloud       int64
	supplier    types.Int64
}

// identity is the host's identity for duplicates: hostIdentity for a host by
// ip and for an agent id of the {bk_cloud_id}:{ip} form (the same host), the
// lower-cased agent id otherwise.
func (h knownHost) identity() string {
	if h.agentID == "" {
		return hostIdentity(h.cloud, h.ip)
	}
	if cloud, ip, ok := cloudIPAgent(h.agentID); ok {
		return hostIdentity(cloud, ip)
	}
	return "agent:" + strings.ToLower(h.agentID)
}

// planKey is what makes two hosts elements plan alike: the host in any
// spelling (identity) and its supplier id, 0 when unset (ValueInt64 of a null).
func (h knownHost) planKey() string {
	return fmt.Sprintf("%s/%d", h.identity(), h.supplier.ValueInt64())
}

// known reads a host whose form and values are known; ok is false when its
// ip, bk_cloud_id or agent_id is not known yet, or neither form is complete.
func (m hostModel) known() (h knownHost, ok bool) {
	h.supplier = m.BkSupplierID
	if m.IP.IsUnknown() || m.BkCloudID.IsUnknown() || m.AgentID.IsUnknown() {
		return h, false
	}
	if !m.AgentID.IsNull() {
		h.agentID = m.AgentID.ValueString()
		return h, true
	}
	if m.IP.IsNull() || m.BkCloudID.IsNull() {
		return h, false
	}
	h.ip, h.cloud = m.IP.ValueString(), m.BkCloudID.ValueInt64()
	return h, true
}

// hostFields reads one host object of any host schema as hostModel.known
// does; an attribute the schema lacks is null.
func hostFields(v attr.Value) (h knownHost, ok bool) {
	obj, isObj := v.(types.Object)
	if !isObj || obj.IsNull() || obj.IsUnknown() {
		return h, false
	}
	a := obj.Attributes()
	var m hostModel
	m.IP, _ = a["ip"].(types.String)
	m.BkCloudID, _ = a["bk_cloud_id"].(types.Int64)
	m.AgentID, _ = a["agent_id"].(types.String)
	m.BkSupplierID, _ = a["bk_supplier_id"].(types.Int64)
	return m.known()
}

// maxAgentID is the longest agent id GSE takes.
const maxAgentID = 64

// cloudIPAgent splits an agent id of the {bk_cloud_id}:{ip} form.
func cloudIPAgent(id string) (int64, string, bool) {
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

// checkAgentID says what is wrong with an agent id, or "".
func checkAgentID(id string) string {
	if len(id) > maxAgentID {
		return fmt.Sprintf("is %d characters long; GSE takes at most %d", len(id), maxAgentID)
	}
	if _, _, ok := cloudIPAgent(id); ok {
		return ""
	}
	if len(id) == 36 && strings.Trim(strings.ToLower(id), "0123456789abcdef") == "" {
		return ""
	}
	return "is neither 36 hex characters (such as 0200000007525400f355781710390005465c) nor {bk_cloud_id}:{ip} (such as 0:10.0.0.1 or 0:2001:db8::1, without a zone)"
}

// hostsValidator checks every host in one pass over the list (checkHosts):
// at least one, each by agent_id or by ip and bk_cloud_id, no host twice.
type hostsValidator struct{}

func (hostsValidator) Description(context.Context) string {
	return "at least one host; each given by agent_id (36 hex characters or {bk_cloud_id}:{ip}, at most 64) or by ip (IPv4 or IPv6, without a zone) and bk_cloud_id (0 or more); no host twice"
}
func (v hostsValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (hostsValidator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if !req.ConfigValue.IsNull() && !req.ConfigValue.IsUnknown() {
		checkHostList(req.Path, req.ConfigValue.Elements(), &resp.Diagnostics)
	}
}

// ValidateString checks a packed list (hostsSchema).
func (hostsValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	l, diags := hostListOf(ctx, req.ConfigValue)
	if resp.Diagnostics.Append(diags...); !diags.HasError() && !l.IsNull() && !l.IsUnknown() {
		checkHostList(req.Path, l.Elements(), &resp.Diagnostics)
	}
}

// checkHostList checks a list of hosts: at least one, each as checkHosts does.
func checkHostList(list path.Path, elems []attr.Value, diags *diag.Diagnostics) {
	if len(elems) == 0 {
		diags.AddAttributeError(list, "Invalid "+list.String(), list.String()+" must list at least one host.")
		return
	}
	checkHosts(list, elems, func(i int, name string) path.Path { return list.AtListIndex(i).AtName(name) }, diags)
}

// checkHosts is the one check of host objects (ip, bk_cloud_id and, where the
// schema has them, bk_supplier_id and agent_id), shared by every list or set
// of hosts: a host by agent_id (36 hex characters or {bk_cloud_id}:{ip}, at
// most 64) or by ip and bk_cloud_id, never both; each ip an IPv4 or IPv6
// address without a zone (GSE and JOB address hosts without one), ids 0 or
// more, and no host twice in any spelling or form (knownHost.identity). at is
// the path of an element's attribute; in a set it is the set's own path (an
// element's path there is its whole value), and messages name the attribute.
func checkHosts(list path.Path, els []attr.Value, at func(i int, name string) path.Path, diags *diag.Diagnostics) {
	subject := func(i int, name string) string {
		if p := at(i, name); !p.Equal(list) {
			return p.String()
		}
		return list.String() + ": " + name
	}
	seen := make(map[string]bool, len(els))
	for i, el := range els {
		obj, _ := el.(types.Object)
		if obj.IsUnknown() || obj.IsNull() {
			continue
		}
		a := obj.Attributes()
		for _, id := range []struct{ name, hint string }{{"bk_cloud_id", " (0 is the default cloud area)"}, {"bk_supplier_id", ""}} {
			if v, _ := a[id.name].(types.Int64); !v.IsUnknown() && !v.IsNull() && v.ValueInt64() < 0 {
				diags.AddAttributeError(at(i, id.name), "Invalid "+id.name,
					fmt.Sprintf("%s must be 0 or more%s, got %d.", subject(i, id.name), id.hint, v.ValueInt64()))
			}
		}
		if _, byAgent := a["agent_id"]; byAgent && !checkHostForm(a, i, at, subject, diags) {
			continue
		}
		h, ok := hostFields(el)
		if !ok {
			continue
		}
		if h.agentID == "" {
			addr, err := netip.ParseAddr(h.ip)
			switch {
			case err != nil:
				diags.AddAttributeError(at(i, "ip"), "Invalid ip",
					fmt.Sprintf("%s must be an IPv4 or IPv6 address without a zone, such as 10.0.0.1 or 2001:db8::1; %q is not an IPv4 or IPv6 address.", subject(i, "ip"), h.ip))
				continue
			case addr.Zone() != "":
				diags.AddAttributeError(at(i, "ip"), "Invalid ip",
					fmt.Sprintf("%s must be an IPv4 or IPv6 address without a zone; %q has a zone, write %s.", subject(i, "ip"), h.ip, addr.WithZone("")))
				continue
			}
		}
		id := h.identity()
		if seen[id] {
			name, host := "ip", gse.Host{IP: h.ip, BkCloudID: h.cloud, AgentID: h.agentID}.String()
			if h.agentID != "" {
				name = "agent_id"
			}
			diags.AddAttributeError(at(i, name), "Duplicate host",
				fmt.Sprintf("%s lists %s more than once (the same host in any spelling or form: 10.0.0.1, ::ffff:10.0.0.1 and agent_id 0:10.0.0.1 in cloud area 0 are one); "+
					"each host may appear once.", list, host))
		}
		seen[id] = true
	}
}

// checkHostForm checks that a host of a schema with agent_id is given by
// exactly one of agent_id or ip with bk_cloud_id, and its agent id. It
// reports whether the host is worth checking further.
func checkHostForm(a map[string]attr.Value, i int, at func(int, string) path.Path, subject func(int, string) string, diags *diag.Diagnostics) bool {
	ipV, _ := a["ip"].(types.String)
	cloudV, _ := a["bk_cloud_id"].(types.Int64)
	agentV, _ := a["agent_id"].(types.String)
	const forms = "a host is given either by agent_id (36 hex characters, or {bk_cloud_id}:{ip}) or by ip and bk_cloud_id"
	switch {
	case agentV.IsUnknown():
		return false
	case !agentV.IsNull():
		if !ipV.IsNull() || !cloudV.IsNull() {
			diags.AddAttributeError(at(i, "agent_id"), "Host given twice",
				fmt.Sprintf("%s is set together with ip or bk_cloud_id; %s, not both. Remove ip and bk_cloud_id, or agent_id.", subject(i, "agent_id"), forms))
			return false
		}
		if msg := checkAgentID(agentV.ValueString()); msg != "" {
			diags.AddAttributeError(at(i, "agent_id"), "Invalid agent_id",
				fmt.Sprintf("%s %q %s.", subject(i, "agent_id"), agentV.ValueString(), msg))
			return false
		}
	case ipV.IsNull() && cloudV.IsNull():
		diags.AddAttributeError(at(i, "ip"), "Host without address",
			fmt.Sprintf("%s is unset and so is %s; %s.", subject(i, "ip"), subject(i, "agent_id"), forms))
		return false
	case ipV.IsNull() != cloudV.IsNull():
		missing := "ip"
		if cloudV.IsNull() {
			missing = "bk_cloud_id"
		}
		diags.AddAttributeError(at(i, missing), "Incomplete host",
			fmt.Sprintf("%s is unset; %s (0 is the default cloud area).", subject(i, missing), forms))
		return false
	}
	return true
}

// hostsPlan makes the order of hosts irrelevant and fills bk_supplier_id. When
// the configuration names the same hosts as the prior state (cloud id, IP in any
// spelling, supplier id), in any order, it plans the prior value: no change.
// Otherwise it plans the configuration with bk_supplier_id defaulted to 0.
type hostsPlan struct{}

func (hostsPlan) Description(context.Context) string {
	return "the order of hosts does not matter; bk_supplier_id defaults to 0"
}
func (m hostsPlan) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (hostsPlan) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	config, diags := hostListOf(ctx, req.ConfigValue)
	state, stateDiags := hostListOf(ctx, req.StateValue)
	if resp.Diagnostics.Append(append(diags, stateDiags...)...); resp.Diagnostics.HasError() || config.IsNull() || config.IsUnknown() {
		return
	}
	keys := make(map[string]bool, len(config.Hosts()))
	planned := make([]hostModel, len(config.Hosts()))
	allKnown := true
	for i, m := range config.Hosts() {
		planned[i] = m
		h, ok := m.known()
		if !ok {
			allKnown = false
			continue
		}
		keys[h.planKey()] = true
		planned[i] = hostModel{BkSupplierID: types.Int64Value(h.supplier.ValueInt64())}
		if h.agentID != "" {
			planned[i].AgentID = types.StringValue(h.agentID)
		} else {
			planned[i].IP, planned[i].BkCloudID = types.StringValue(h.ip), types.Int64Value(h.cloud)
		}
	}
	if allKnown && !state.IsNull() && !state.IsUnknown() && len(state.Hosts()) == len(planned) {
		same := true
		for _, m := range state.Hosts() {
			h, ok := m.known()
			if !ok || !keys[h.planKey()] {
				same = false
				break
			}
		}
		if same {
			resp.PlanValue = req.StateValue
			return
		}
	}
	resp.PlanValue = packHosts(planned, config.unknown)
}

// hostElement is each attribute of a gse_managed_process.hosts element: the
// one definition both hostObjectType (the framework's view) and
// hostsNestedType (Terraform's) are built from.
// They are in name order, the order Terraform encodes them in.
var hostElement = []hostAttr{
	{"agent_id", types.StringType, hostAgentDesc, false, func(h *hostModel) any { return &h.AgentID }},
	{"bk_cloud_id", types.Int64Type, gseHostCloudDesc, false, func(h *hostModel) any { return &h.BkCloudID }},
	{"bk_supplier_id", types.Int64Type, hostSupplierDesc, true, func(h *hostModel) any { return &h.BkSupplierID }},
	{"ip", types.StringType, gseHostIPDesc + " `::ffff:10.0.0.1` is the same host as `10.0.0.1` and is sent to GSE as `10.0.0.1`.", false, func(h *hostModel) any { return &h.IP }},
}

// hostAttr is an attribute of a gse_managed_process.hosts element.
type hostAttr struct {
	name     string
	typ      attr.Type
	desc     string
	computed bool                   // planned by the provider
	field    func(h *hostModel) any // *types.String or *types.Int64
}

// hostObjectType is the element type of gse_managed_process.hosts.
var hostObjectType = func() types.ObjectType {
	t := types.ObjectType{AttrTypes: map[string]attr.Type{}}
	for _, a := range hostElement {
		t.AttrTypes[a.name] = a.typ
	}
	return t
}()

// importHost is one host of the host list of an import ID.
type importHost struct {
	cloud, supplier int64
	ip              string
}

// parseImportHosts reads the host list of an import ID: comma-separated items
// bk_cloud_id:ip, or bk_cloud_id:bk_supplier_id:ip withSupplier. The IP comes
// last because an IPv6 address holds ':'. It must parse without a zone, the ids
// must be 0 or more, and no host may appear twice in any spelling (the
// identity of hostIdentity, as the hosts validators judge a configuration).
// noun names an item in errors ("host", "IP").
func parseImportHosts(list string, withSupplier bool, noun string) ([]importHost, error) {
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
		h := importHost{cloud: nums[0], supplier: nums[1], ip: parts[n-1]}
		if a, err := netip.ParseAddr(h.ip); err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("%s %q: %q is not an IP address without zone", noun, item, h.ip)
		}
		id := hostIdentity(h.cloud, h.ip)
		if seen[id] {
			return nil, fmt.Errorf("%s %q is listed twice", noun, item)
		}
		seen[id] = true
		out = append(out, h)
	}
	return out, nil
}

// hostRefsValidator checks a list or set of hosts by ip and bk_cloud_id (an
// ip_list, or the hosts of gse_process_operation) with checkHosts, the check
// of every host list.
type hostRefsValidator struct{}

func (hostRefsValidator) Description(context.Context) string {
	return "every ip is an IPv4 or IPv6 address without zone, bk_cloud_id is 0 or more, and no host appears twice"
}

func (v hostRefsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v hostRefsValidator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	checkHosts(req.Path, req.ConfigValue.Elements(), func(i int, name string) path.Path { return req.Path.AtListIndex(i).AtName(name) }, &resp.Diagnostics)
}

func (v hostRefsValidator) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	// A set element's path is its whole value: the message names the IP instead.
	checkHosts(req.Path, req.ConfigValue.Elements(), func(int, string) path.Path { return req.Path }, &resp.Diagnostics)
}
