package cmdb

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
)

// cmdbAgent is the agent id the simulator gives CMDB host id (even ids only).
func cmdbAgent(id int) string { return fmt.Sprintf("0200000007525400%020x", id) }

func TestSelectHosts(t *testing.T) {
	t.Parallel()
	found := []gse.CMDBHost{
		{BkHostID: 1, InnerIP: "10.0.0.1,192.168.0.1", AgentID: cmdbAgent(1)},
		{BkHostID: 2, InnerIPv6: "fd00::2"},
		{BkHostID: 3},
		{BkHostID: 4, InnerIP: "10.0.0.1", BkCloudID: 0},
		{BkHostID: 5, InnerIP: "10.0.0.1", BkCloudID: 1},
	}
	esb, gw := selectHosts(found, false), selectHosts(found, true)
	ids := func(s hostSelection) string { return fmt.Sprint(s.ids.Elements(), s.skippedIDs().Elements()) }
	if got, want := ids(esb), "[1 5] [2 3 4]"; got != want {
		t.Errorf("ESB: host ids and skipped %s, want %s", got, want)
	}
	if got, want := ids(gw), "[1 2 5] [3 4]"; got != want {
		t.Errorf("gateway: host ids and skipped %s, want %s", got, want)
	}
	if h, _ := hosts.Fields(esb.hosts.Elements()[0]); h.IP != "10.0.0.1" || h.AgentID != "" {
		t.Errorf("ESB: host 1 is %+v, want its first IPv4 address", h)
	}
	if h, _ := hosts.Fields(gw.hosts.Elements()[0]); h.AgentID != cmdbAgent(1) {
		t.Errorf("gateway: host 1 is %+v, want its agent id", h)
	}
	if n := len(esb.ipList.Elements()); n != 3 {
		t.Errorf("ESB: ip_list holds %d hosts, want 3 (the IPv6-only one too)", n)
	}
	w := esb.skippedWarning(false)
	for _, want := range []string{"bk_host_id 2: only an IPv6 address", "bk_host_id 3: no IPv4 or IPv6 address", "bk_host_id 4: the same address as bk_host_id 1", "set the provider's gateway_url"} {
		if !strings.Contains(w, want) {
			t.Errorf("the warning lacks %q:\n%s", want, w)
		}
	}
	if w := gw.skippedWarning(true); strings.Contains(w, "gateway_url") {
		t.Errorf("through the gateway, the warning still advises gateway_url:\n%s", w)
	}
}

// TestCMDBRuleWarnsStringOperatorOnNumbers: CMDB accepts a string operator on
// a numeric field but MongoDB's $regex matches no number, so the plan warns.
func TestCMDBRuleWarnsStringOperatorOnNumbers(t *testing.T) {
	t.Parallel()
	attrTypes := map[string]attr.Type{
		"field": basetypes.StringType{}, "operator": basetypes.StringType{}, "value": basetypes.StringType{},
		"values": basetypes.ListType{ElemType: basetypes.StringType{}}, "number": basetypes.NumberType{},
		"numbers": basetypes.ListType{ElemType: basetypes.NumberType{}}, "literal": basetypes.BoolType{},
	}
	rule := func(field, op string) basetypes.ObjectValue {
		v := map[string]attr.Value{
			"field": basetypes.NewStringValue(field), "operator": basetypes.NewStringValue(op), "value": basetypes.NewStringValue("1"),
			"values": basetypes.NewListNull(basetypes.StringType{}), "number": basetypes.NewNumberNull(),
			"numbers": basetypes.NewListNull(basetypes.NumberType{}), "literal": basetypes.NewBoolNull(),
		}
		return basetypes.NewObjectValueMust(attrTypes, v)
	}
	for _, tc := range []struct {
		field, op string
		warns     bool
	}{{"bk_cloud_id", "begins_with", true}, {"bk_cloud_id", "not_contains", true}, {"bk_host_name", "begins_with", false}, {"bk_cloud_id", "equal", false}} {
		var resp validator.ObjectResponse
		cmdbRuleValidator{group: false, fields: hostFields}.ValidateObject(context.Background(), validator.ObjectRequest{Path: path.Root("filter").AtName("rules").AtListIndex(0), ConfigValue: rule(tc.field, tc.op)}, &resp)
		if resp.Diagnostics.HasError() || (resp.Diagnostics.WarningsCount() == 1) != tc.warns {
			t.Errorf("%s %s: %v, want a warning: %v", tc.field, tc.op, resp.Diagnostics, tc.warns)
		}
		if tc.warns && !strings.Contains(resp.Diagnostics[0].Detail(), "filter.rules[0].field: "+tc.field+" holds numbers, and "+tc.op+" matches strings only") {
			t.Errorf("%s %s: warning %q", tc.field, tc.op, resp.Diagnostics[0].Detail())
		}
	}
}
