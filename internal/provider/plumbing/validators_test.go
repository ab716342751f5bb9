package plumbing

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestNumberMessages: ranges and named choices in the numbers users write.
func TestNumberMessages(t *testing.T) {
	ctx := context.Background()
	p := path.Root("spec").AtName("resource").AtName("cpu")
	for _, tc := range []struct {
		run  func(*validator.Float64Response, *validator.Int64Response)
		want string
	}{
		{func(f *validator.Float64Response, _ *validator.Int64Response) {
			ZeroTo(100).ValidateFloat64(ctx, validator.Float64Request{Path: p, ConfigValue: types.Float64Value(150)}, f)
		}, "spec.resource.cpu must be 0 to 100, got 150."},
		{func(f *validator.Float64Response, _ *validator.Int64Response) {
			ZeroTo(100).ValidateFloat64(ctx, validator.Float64Request{Path: p, ConfigValue: types.Float64Value(100.5)}, f)
		}, "spec.resource.cpu must be 0 to 100, got 100.5."},
		{func(f *validator.Float64Response, _ *validator.Int64Response) {
			ZeroTo(100).ValidateFloat64(ctx, validator.Float64Request{Path: p, ConfigValue: types.Float64Value(99.5)}, f)
		}, ""},
		{func(f *validator.Float64Response, _ *validator.Int64Response) {
			ZeroOrMore().ValidateFloat64(ctx, validator.Float64Request{Path: path.Root("rate_limit"), ConfigValue: types.Float64Value(-0.5)}, f)
		}, "rate_limit must be 0 or more, got -0.5."},
		{func(_ *validator.Float64Response, i *validator.Int64Response) {
			NamedInts{"periodic", "resident", "one-shot"}.ValidateInt64(ctx, validator.Int64Request{Path: path.Root("type"), ConfigValue: types.Int64Value(-1)}, i)
		}, "type must be 0 (periodic), 1 (resident) or 2 (one-shot), got -1."},
		{func(_ *validator.Float64Response, i *validator.Int64Response) {
			NamedInts{"periodic", "resident", "one-shot"}.ValidateInt64(ctx, validator.Int64Request{Path: path.Root("type"), ConfigValue: types.Int64Value(2)}, i)
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
