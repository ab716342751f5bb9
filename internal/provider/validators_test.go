package provider_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider"
)

// TestTimeoutsOneErrorEach: in every resource and data source with
// timeouts, a timeout without a unit is one error, naming the attribute.
func TestTimeoutsOneErrorEach(t *testing.T) {
	ctx := context.Background()
	p := provider.New("test")()
	timeoutAttrs := map[string]map[string]any{}
	for _, f := range p.Resources(ctx) {
		r := f()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "gse"}, &meta)
		var resp resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &resp)
		if a, ok := resp.Schema.Attributes["timeouts"].(schema.SingleNestedAttribute); ok {
			timeoutAttrs[meta.TypeName] = map[string]any{}
			for name, nested := range a.Attributes {
				timeoutAttrs[meta.TypeName][name] = nested
			}
		}
	}
	for _, f := range p.DataSources(ctx) {
		d := f()
		var meta datasource.MetadataResponse
		d.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "gse"}, &meta)
		var resp datasource.SchemaResponse
		d.Schema(ctx, datasource.SchemaRequest{}, &resp)
		if a, ok := resp.Schema.Attributes["timeouts"].(dschema.SingleNestedAttribute); ok {
			timeoutAttrs["data."+meta.TypeName] = map[string]any{}
			for name, nested := range a.Attributes {
				timeoutAttrs["data."+meta.TypeName][name] = nested
			}
		}
	}
	if len(timeoutAttrs) < 4 {
		t.Fatalf("timeouts found on %d resources and data sources, want at least 4: %v", len(timeoutAttrs), timeoutAttrs)
	}
	for typ, attrs := range timeoutAttrs {
		for name, a := range attrs {
			s, ok := a.(interface{ StringValidators() []validator.String })
			if !ok {
				t.Fatalf("%s timeouts.%s is not a string attribute", typ, name)
			}
			p := path.Root("timeouts").AtName(name)
			var resp validator.StringResponse
			for _, v := range s.StringValidators() {
				v.ValidateString(ctx, validator.StringRequest{Path: p, ConfigValue: types.StringValue("10")}, &resp)
			}
			want := `timeouts.` + name + ` must be a duration with a unit, such as 10s or 10m, got "10".`
			if n := resp.Diagnostics.ErrorsCount(); n != 1 || resp.Diagnostics[0].Detail() != want {
				t.Errorf("%s timeouts.%s = \"10\": %d errors %v, want one: %s", typ, name, n, resp.Diagnostics, want)
			}
		}
	}
}
