package provider

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

	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

// TestTimeoutsOneErrorEach: in every resource and data source with
// timeouts, a timeout without a unit is one error, naming the attribute.
func TestTimeoutsOneErrorEach(t *testing.T) {
	ctx := context.Background()
	p := &gseProvider{}
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

// TestNumberMessages: ranges and named choices in the numbers users write.
func TestNumberMessages(t *testing.T) {
	ctx := context.Background()
	p := path.Root("spec").AtName("resource").AtName("cpu")
	for _, tc := range []struct {
		run  func(*validator.Float64Response, *validator.Int64Response)
		want string
	}{
		{func(f *validator.Float64Response, _ *validator.Int64Response) {
			plumbing.ZeroTo(100).ValidateFloat64(ctx, validator.Float64Request{Path: p, ConfigValue: types.Float64Value(150)}, f)
		}, "spec.resource.cpu must be 0 to 100, got 150."},
		{func(f *validator.Float64Response, _ *validator.Int64Response) {
			plumbing.ZeroTo(100).ValidateFloat64(ctx, validator.Float64Request{Path: p, ConfigValue: types.Float64Value(100.5)}, f)
		}, "spec.resource.cpu must be 0 to 100, got 100.5."},
		{func(f *validator.Float64Response, _ *validator.Int64Response) {
			plumbing.ZeroTo(100).ValidateFloat64(ctx, validator.Float64Request{Path: p, ConfigValue: types.Float64Value(99.5)}, f)
		}, ""},
		{func(f *validator.Float64Response, _ *validator.Int64Response) {
			plumbing.ZeroOrMore().ValidateFloat64(ctx, validator.Float64Request{Path: path.Root("rate_limit"), ConfigValue: types.Float64Value(-0.5)}, f)
		}, "rate_limit must be 0 or more, got -0.5."},
		{func(_ *validator.Float64Response, i *validator.Int64Response) {
			plumbing.NamedInts(spec.AutoTypes).ValidateInt64(ctx, validator.Int64Request{Path: path.Root("type"), ConfigValue: types.Int64Value(-1)}, i)
		}, "type must be 0 (periodic), 1 (resident) or 2 (one-shot), got -1."},
		{func(_ *validator.Float64Response, i *validator.Int64Response) {
			plumbing.NamedInts(spec.AutoTypes).ValidateInt64(ctx, validator.Int64Request{Path: path.Root("type"), ConfigValue: types.Int64Value(2)}, i)
		}, ""},
	} {
		var f validator.Float64Response
		var i validator.Int64Response
		tc.run(&f, &i)
		diags := append(f.Diagnostics, i.Diagnostics...)
		got := ""
		if len(diags) > 0 {
			got = diags[0].Detail()
		}
		if got != tc.want || len(diags) > 1 {
			t.Errorf("got %v, want %q", diags, tc.want)
		}
	}
}
