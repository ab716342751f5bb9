package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// gse_managed_process.hosts has no per-element validators, defaults or plan
// modifiers: one validator checks every element, and one plan modifier makes
// the order irrelevant and fills bk_supplier_id. The framework holds the list
// packed (common_hosts_packed.go), one leaf it does not walk element by
// element (a nested list costs it the square of the hosts in v1.19:
// listElemObject copies the list per element); Terraform sees a list nested
// attribute with its per-element schema, and the values are the same on the
// wire.

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
// (common_hosts_packed.go); hostListType.terraformSchema is the same attribute
// as Terraform sees it.
func hostsSchema(desc string) schema.StringAttribute {
	return schema.StringAttribute{
		Required: true, CustomType: hostListType{}, MarkdownDescription: desc,
		Validators:    []validator.String{hostsValidator{}},
		PlanModifiers: []planmodifier.String{hostsPlan{}},
	}
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
// one definition hostObjectType, hostListType.terraformSchema (Terraform's
// view) and hostCodec (the wire) are built from. They are in name order, the
// order Terraform encodes them in.
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
