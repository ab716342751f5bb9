package hosts

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// ip_list is a plain list of {ip, bk_cloud_id} objects, not a nested
// attribute: the framework walks a nested attribute once per element (and
// terraform-plugin-framework v1.19 copies the whole list for each element of
// a list, so plan cost grew with the square of the IPs), while the elements of
// a plain list carry no schema of their own. Both of their attributes are
// required, so nothing is lost. One list-level validator checks every IP and
// finds duplicates, and one list-level plan modifier keeps the prior order
// when only the order changed.

// JobIPObjectType is an element of ip_list.
var JobIPObjectType = types.ObjectType{AttrTypes: map[string]attr.Type{"ip": types.StringType, "bk_cloud_id": types.Int64Type}}

// jobIPElementDesc says what the attributes of an ip_list element mean: a
// plain list's elements have no descriptions of their own.
const jobIPElementDesc = " Each element holds `ip`, the IPv4 or IPv6 address of the host without a zone (`%eth0`), " +
	"and `bk_cloud_id`, its cloud area (管控区域) id, `0` or more (`0` is the default area)."

// JobIPListAttribute is ip_list of gse_job_managed_process.
func JobIPListAttribute(desc string) schema.ListAttribute {
	return schema.ListAttribute{
		Required: true, ElementType: JobIPObjectType,
		MarkdownDescription: desc + jobIPElementDesc + " Order does not matter; each `bk_cloud_id` and IP pair may appear once.",
		Validators:          []validator.List{listvalidator.SizeAtLeast(1), refsValidator{}},
		PlanModifiers:       []planmodifier.List{ignoreIPOrder{}},
	}
}

// JobIPListDataSourceAttribute is ip_list of gse_job_process_status.
func JobIPListDataSourceAttribute(desc string) dschema.ListAttribute {
	return dschema.ListAttribute{
		Required: true, ElementType: JobIPObjectType,
		MarkdownDescription: desc + jobIPElementDesc + " Each `bk_cloud_id` and IP pair may appear once.",
		Validators:          []validator.List{listvalidator.SizeAtLeast(1), refsValidator{}},
	}
}

// knownJobIP reads an element whose ip and bk_cloud_id are known.
func knownJobIP(el attr.Value) (gse.JobIP, bool) {
	obj, ok := el.(types.Object)
	if !ok || obj.IsNull() || obj.IsUnknown() {
		return gse.JobIP{}, false
	}
	ip, okIP := obj.Attributes()["ip"].(types.String)
	cloud, okCloud := obj.Attributes()["bk_cloud_id"].(types.Int64)
	if !okIP || !okCloud || ip.IsNull() || ip.IsUnknown() || cloud.IsNull() || cloud.IsUnknown() {
		return gse.JobIP{}, false
	}
	return gse.JobIP{BkCloudID: cloud.ValueInt64(), IP: ip.ValueString()}, true
}

// ignoreIPOrder plans the prior ip_list when the configuration lists the same
// hosts, spelled the same, in another order: reordering is not a change.
type ignoreIPOrder struct{}

func (ignoreIPOrder) Description(context.Context) string {
	return "a reordered ip_list plans no change"
}

func (m ignoreIPOrder) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (ignoreIPOrder) PlanModifyList(_ context.Context, req planmodifier.ListRequest, resp *planmodifier.ListResponse) {
	if req.StateValue.IsNull() || req.PlanValue.IsUnknown() || req.PlanValue.IsNull() || req.PlanValue.Equal(req.StateValue) {
		return
	}
	if sameIPsAnyOrder(req.StateValue.Elements(), req.PlanValue.Elements()) {
		resp.PlanValue = req.StateValue
	}
}

// sameIPsAnyOrder reports whether two ip_lists hold the same elements, as
// written, in any order.
func sameIPsAnyOrder(a, b []attr.Value) bool {
	if len(a) != len(b) {
		return false
	}
	count := make(map[gse.JobIP]int, len(a))
	for _, el := range a {
		ip, ok := knownJobIP(el)
		if !ok {
			return false
		}
		count[ip]++
	}
	for _, el := range b {
		ip, ok := knownJobIP(el)
		if !ok || count[ip] == 0 {
			return false
		}
		count[ip]--
	}
	return true
}
