package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
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

// hostsSchema is gse_managed_process.hosts as the framework sees it (see the
// top of this file); hostsNestedType is the same attribute as Terraform sees it.
func hostsSchema(desc string) schema.ListAttribute {
	return schema.ListAttribute{
		Required: true, ElementType: hostObjectType, MarkdownDescription: desc,
		Validators:    []validator.List{hostsValidator{}},
		PlanModifiers: []planmodifier.List{hostsPlan{}},
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
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	elems := req.ConfigValue.Elements()
	if len(elems) == 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), req.Path.String()+" must list at least one host.")
		return
	}
	checkHosts(req.Path, elems, func(i int, name string) path.Path { return req.Path.AtListIndex(i).AtName(name) }, &resp.Diagnostics)
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

func (hostsPlan) PlanModifyList(_ context.Context, req planmodifier.ListRequest, resp *planmodifier.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	config := req.ConfigValue.Elements()
	keys := make(map[string]bool, len(config))
	planned := make([]attr.Value, len(config))
	allKnown := true
	for i, el := range config {
		planned[i] = el
		h, ok := hostFields(el)
		if !ok {
			allKnown = false
			continue
		}
		keys[h.planKey()] = true
		obj := map[string]attr.Value{
			"ip": types.StringNull(), "bk_cloud_id": types.Int64Null(), "agent_id": types.StringNull(), "bk_supplier_id": types.Int64Value(h.supplier.ValueInt64()),
		}
		if h.agentID != "" {
			obj["agent_id"] = types.StringValue(h.agentID)
		} else {
			obj["ip"], obj["bk_cloud_id"] = types.StringValue(h.ip), types.Int64Value(h.cloud)
		}
		planned[i] = types.ObjectValueMust(hostObjectType.AttrTypes, obj)
	}
	if allKnown && !req.StateValue.IsNull() && !req.StateValue.IsUnknown() && len(req.StateValue.Elements()) == len(config) {
		same := true
		for _, el := range req.StateValue.Elements() {
			h, ok := hostFields(el)
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
	resp.PlanValue = types.ListValueMust(hostObjectType, planned)
}

// hostElement is each attribute of a gse_managed_process.hosts element: the
// one definition both hostObjectType (the framework's view) and
// hostsNestedType (Terraform's) are built from.
var hostElement = []struct {
	name     string
	typ      attr.Type
	desc     string
	computed bool // planned by the provider
}{
	{"agent_id", types.StringType, hostAgentDesc, false},
	{"bk_cloud_id", types.Int64Type, gseHostCloudDesc, false},
	{"bk_supplier_id", types.Int64Type, hostSupplierDesc, true},
	{"ip", types.StringType, gseHostIPDesc + " `::ffff:10.0.0.1` is the same host as `10.0.0.1` and is sent to GSE as `10.0.0.1`.", false},
}

// hostObjectType is the element type of gse_managed_process.hosts.
var hostObjectType = func() types.ObjectType {
	t := types.ObjectType{AttrTypes: map[string]attr.Type{}}
	for _, a := range hostElement {
		t.AttrTypes[a.name] = a.typ
	}
	return t
}()
