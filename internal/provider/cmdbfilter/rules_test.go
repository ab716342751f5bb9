package cmdbfilter

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

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
		cmdbRuleValidator{group: false, fields: Host}.ValidateObject(context.Background(), validator.ObjectRequest{Path: path.Root("filter").AtName("rules").AtListIndex(0), ConfigValue: rule(tc.field, tc.op)}, &resp)
		if resp.Diagnostics.HasError() || (resp.Diagnostics.WarningsCount() == 1) != tc.warns {
			t.Errorf("%s %s: %v, want a warning: %v", tc.field, tc.op, resp.Diagnostics, tc.warns)
		}
		if tc.warns && !strings.Contains(resp.Diagnostics[0].Detail(), "filter.rules[0].field: "+tc.field+" holds numbers, and "+tc.op+" matches strings only") {
			t.Errorf("%s %s: warning %q", tc.field, tc.op, resp.Diagnostics[0].Detail())
		}
	}
}
