package service

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestFileShape: each element of config_files has one owner and one content,
// and content_wo its version; what is unknown is not judged.
func TestFileShape(t *testing.T) {
	names := []string{"instance", "group", "content", "content_wo", "content_wo_version"}
	str := func(v string) attr.Value {
		switch v {
		case "":
			return types.StringNull()
		case "?":
			return types.StringUnknown()
		}
		return types.StringValue(v)
	}
	cases := map[string]struct {
		vals [5]string // instance, group, content, content_wo, content_wo_version
		want string    // "" or a word of the error
	}{
		"instance and content":         {[5]string{"i", "", "c", "", ""}, ""},
		"group and content_wo":         {[5]string{"", "g", "", "s", "1"}, ""},
		"both owners":                  {[5]string{"i", "g", "c", "", ""}, "instance and group"},
		"no owner":                     {[5]string{"", "", "c", "", ""}, "instance and group"},
		"both contents":                {[5]string{"i", "", "c", "s", "1"}, "content and content_wo"},
		"no content":                   {[5]string{"i", "", "", "", ""}, "content and content_wo"},
		"content_wo without a version": {[5]string{"i", "", "", "s", ""}, "content_wo_version"},
		"unknown owner":                {[5]string{"?", "g", "c", "", ""}, ""},
		"unknown content_wo":           {[5]string{"i", "", "", "?", ""}, ""},
	}
	attrTypes := map[string]attr.Type{}
	for _, n := range names {
		attrTypes[n] = types.StringType
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			vals := map[string]attr.Value{}
			for i, n := range names {
				vals[n] = str(c.vals[i])
			}
			req := validator.ObjectRequest{Path: path.Root("config_files").AtMapKey("f"), ConfigValue: types.ObjectValueMust(attrTypes, vals)}
			var resp validator.ObjectResponse
			fileShape{}.ValidateObject(context.Background(), req, &resp)
			switch {
			case c.want == "" && resp.Diagnostics.HasError():
				t.Fatalf("unexpected error: %v", resp.Diagnostics)
			case c.want != "" && (!resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics.Errors()[0].Detail(), c.want)):
				t.Fatalf("want an error naming %q, got %v", c.want, resp.Diagnostics)
			}
		})
	}
}
