package managedprocess

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
)

// configWith is a gse_managed_process configuration that sets only the given
// attributes (dotted paths); every other attribute is null.
func configWith(t *testing.T, set map[string]tftypes.Value) tfsdk.Config {
	t.Helper()
	s, raw := rawWith(set)
	return tfsdk.Config{Schema: s, Raw: raw}
}

// rawWith is the gse_managed_process schema and an object of its type with only set given.
// A packed attribute (package packed) is built as Terraform sees it, then packed.
func rawWith(set map[string]tftypes.Value) (schema.Schema, tftypes.Value) {
	ctx := context.Background()
	var sr resource.SchemaResponse
	(&managedProcessResource{}).Schema(ctx, resource.SchemaRequest{}, &sr)
	var build func(typ tftypes.Type, at string) (tftypes.Value, bool)
	build = func(typ tftypes.Type, at string) (tftypes.Value, bool) {
		if v, ok := set[at]; ok {
			return v, true
		}
		if a, ok := sr.Schema.Attributes[at].(schema.StringAttribute); ok && a.CustomType != nil {
			if pt, ok := a.CustomType.(packed.Type); ok {
				ut := pt.UnpackedType(ctx)
				v, anySet := build(ut, at+".") // the same path, no longer the packed attribute's name
				if !anySet {
					return tftypes.NewValue(typ, nil), false
				}
				dv, err := tfprotov6.NewDynamicValue(ut, v)
				if err != nil {
					panic(err)
				}
				return tftypes.NewValue(typ, string(dv.MsgPack)), true
			}
		}
		obj, isObj := typ.(tftypes.Object)
		if !isObj {
			return tftypes.NewValue(typ, nil), false
		}
		attrs, anySet := map[string]tftypes.Value{}, false
		for name, at2 := range obj.AttributeTypes {
			v, ok := build(at2, strings.Trim(strings.TrimSuffix(at, ".")+"."+name, "."))
			attrs[name], anySet = v, anySet || ok
		}
		if !anySet {
			return tftypes.NewValue(typ, nil), false
		}
		return tftypes.NewValue(typ, attrs), true
	}
	raw, _ := build(sr.Schema.Type().TerraformType(ctx), "")
	return sr.Schema, raw
}

// auto_type = 0 without crontab_rule plans with a warning, not an error: GSE
// accepts it (the rule is optional and reserved), but nothing would run the process.
func TestValidateConfigPeriodicWithoutRule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		set      map[string]tftypes.Value
		warnings int
	}{
		{"periodic without rule", map[string]tftypes.Value{"spec.monitor_policy.auto_type": tftypes.NewValue(tftypes.Number, 0), "managed": tftypes.NewValue(tftypes.Bool, false)}, 1},
		{"periodic with rule", map[string]tftypes.Value{
			"spec.monitor_policy.auto_type":    tftypes.NewValue(tftypes.Number, 0),
			"spec.monitor_policy.crontab_rule": tftypes.NewValue(tftypes.String, "*/5 * * * *"),
			"managed":                          tftypes.NewValue(tftypes.Bool, false),
		}, 0},
		{"resident", map[string]tftypes.Value{"spec.monitor_policy.auto_type": tftypes.NewValue(tftypes.Number, 1), "managed": tftypes.NewValue(tftypes.Bool, false)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var resp resource.ValidateConfigResponse
			(&managedProcessResource{}).ValidateConfig(context.Background(), resource.ValidateConfigRequest{Config: configWith(t, tc.set)}, &resp)
			if resp.Diagnostics.HasError() {
				t.Fatalf("unexpected errors: %v", resp.Diagnostics)
			}
			if n := resp.Diagnostics.WarningsCount(); n != tc.warnings {
				t.Fatalf("got %d warnings (%v), want %d", n, resp.Diagnostics, tc.warnings)
			}
			if tc.warnings > 0 && !strings.Contains(resp.Diagnostics.Warnings()[0].Detail(), "crontab_rule") {
				t.Errorf("the warning does not name crontab_rule: %v", resp.Diagnostics)
			}
		})
	}
}
