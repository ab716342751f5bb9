package hosts

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func ipObj(cloud int64, ip string) attr.Value {
	return types.ObjectValueMust(map[string]attr.Type{"ip": types.StringType, "bk_cloud_id": types.Int64Type},
		map[string]attr.Value{"ip": types.StringValue(ip), "bk_cloud_id": types.Int64Value(cloud)})
}

func TestSameIPsAnyOrder(t *testing.T) {
	t.Parallel()
	a := []attr.Value{ipObj(0, "10.0.0.1"), ipObj(1, "10.0.0.2"), ipObj(0, "2001:db8::1")}
	for name, tc := range map[string]struct {
		b    []attr.Value
		same bool
	}{
		"reordered":       {[]attr.Value{ipObj(0, "2001:db8::1"), ipObj(0, "10.0.0.1"), ipObj(1, "10.0.0.2")}, true},
		"another cloud":   {[]attr.Value{ipObj(0, "2001:db8::1"), ipObj(0, "10.0.0.1"), ipObj(0, "10.0.0.2")}, false},
		"respelled":       {[]attr.Value{ipObj(0, "2001:DB8::1"), ipObj(0, "10.0.0.1"), ipObj(1, "10.0.0.2")}, false},
		"one less":        {[]attr.Value{ipObj(0, "10.0.0.1"), ipObj(1, "10.0.0.2")}, false},
		"one twice":       {[]attr.Value{ipObj(0, "10.0.0.1"), ipObj(0, "10.0.0.1"), ipObj(1, "10.0.0.2")}, false},
		"unknown element": {[]attr.Value{ipObj(0, "10.0.0.1"), ipObj(1, "10.0.0.2"), types.ObjectUnknown(map[string]attr.Type{"ip": types.StringType, "bk_cloud_id": types.Int64Type})}, false},
	} {
		if got := sameIPsAnyOrder(a, tc.b); got != tc.same {
			t.Errorf("%s: %v, want %v", name, got, tc.same)
		}
	}
}

func TestJobIPListValidator(t *testing.T) {
	t.Parallel()
	elType := types.ObjectType{AttrTypes: map[string]attr.Type{"ip": types.StringType, "bk_cloud_id": types.Int64Type}}
	for name, tc := range map[string]struct {
		els  []attr.Value
		want []string // summaries
	}{
		"valid":        {[]attr.Value{ipObj(0, "10.0.0.1"), ipObj(0, "10.0.0.2"), ipObj(1, "10.0.0.1"), ipObj(0, "2001:db8::1")}, nil},
		"mapped twice": {[]attr.Value{ipObj(0, "10.0.0.1"), ipObj(0, "::ffff:10.0.0.1")}, []string{"Duplicate host"}},
		"case twice":   {[]attr.Value{ipObj(0, "2001:DB8::1"), ipObj(0, "2001:db8::1")}, []string{"Duplicate host"}},
		"zone":         {[]attr.Value{ipObj(0, "fe80::1%eth0")}, []string{"Invalid ip"}},
		"not an ip":    {[]attr.Value{ipObj(0, "10.0.0"), ipObj(-1, "10.0.0.1")}, []string{"Invalid ip", "Invalid bk_cloud_id"}},
	} {
		resp := &validator.ListResponse{}
		refsValidator{}.ValidateList(context.Background(), validator.ListRequest{Path: path.Root("ip_list"), ConfigValue: types.ListValueMust(elType, tc.els)}, resp)
		var got []string
		for _, d := range resp.Diagnostics {
			got = append(got, d.Summary())
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}
