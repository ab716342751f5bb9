package hosts

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
// packed (List), one leaf it does not walk element by
// element (a nested list costs it the square of the hosts in v1.19:
// listElemObject copies the list per element); Terraform sees a list nested
// attribute with its per-element schema, and the values are the same on the
// wire.

// PackedAttribute is gse_managed_process.hosts as the framework sees it: packed
// (List); List.UnpackedSchema is the same attribute as Terraform sees it.
func PackedAttribute(desc string) schema.StringAttribute {
	return schema.StringAttribute{
		Required: true, CustomType: hostListType{}, MarkdownDescription: desc,
		Validators:    []validator.String{Validator{}},
		PlanModifiers: []planmodifier.String{hostsPlan{}},
	}
}

// Validator checks every host in one pass over the list (checkHosts):
// at least one, each by agent_id or by ip and bk_cloud_id, no host twice.
type Validator struct{}

func (Validator) Description(context.Context) string {
	return "at least one host; each given by agent_id (36 hex characters or {bk_cloud_id}:{ip}, at most 64) or by ip (IPv4 or IPv6, without a zone) and bk_cloud_id (0 or more); no host twice"
}
func (v Validator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (Validator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if !req.ConfigValue.IsNull() && !req.ConfigValue.IsUnknown() {
		checkHostList(req.Path, req.ConfigValue.Elements(), &resp.Diagnostics)
	}
}

// ValidateString checks a packed list (Schema).
func (Validator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
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
	planned := make([]Model, len(config.Hosts()))
	allKnown := true
	for i, m := range config.Hosts() {
		planned[i] = m
		h, ok := m.known()
		if !ok {
			allKnown = false
			continue
		}
		keys[h.planKey()] = true
		planned[i] = Model{BkSupplierID: types.Int64Value(h.supplier.ValueInt64())}
		if h.AgentID != "" {
			planned[i].AgentID = types.StringValue(h.AgentID)
		} else {
			planned[i].IP, planned[i].BkCloudID = types.StringValue(h.IP), types.Int64Value(h.cloud)
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
	resp.PlanValue = Pack(planned, config.Unknown)
}
