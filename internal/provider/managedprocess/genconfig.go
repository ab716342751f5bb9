package managedprocess

import (
	"context"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

// The packed server finds it by this interface.
var _ packed.ConfigGenerator = (*managedProcessResource)(nil)

// GeneratedConfig makes the configuration Terraform 1.14+ generates for an
// imported gse_managed_process (`plan -generate-config-out`, `terraform
// query -generate-config-out`) as close to plannable as GSE allows. GSE
// cannot return a registered spec, so the framework's answer had
// `spec = null`, refused as a whole ("Missing Configuration for Required
// Attribute"). Here spec is its skeleton instead: every object it requires,
// each attribute null, so the plan names each required value left to fill in
// (spec.identity.proc_name, ...). Values equal to what the provider would
// plan anyway (managed = true, bk_supplier_id = 0) are left out: Terraform
// writes no line for a null computed attribute.
func (r *managedProcessResource) GeneratedConfig(ctx context.Context, v tftypes.Value) (tftypes.Value, error) {
	return tftypes.Transform(v, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		steps := p.Steps()
		switch {
		case len(steps) == 1 && steps[0] == tftypes.AttributeName("spec") && v.IsNull():
			return skeleton(v.Type(), spec.TypedAttribute.Attributes), nil
		case len(steps) == 1 && steps[0] == tftypes.AttributeName("managed") && v.Equal(tftypes.NewValue(tftypes.Bool, true)):
			return tftypes.NewValue(tftypes.Bool, nil), nil
		case len(steps) == 3 && steps[0] == tftypes.AttributeName("hosts") && steps[2] == tftypes.AttributeName("bk_supplier_id") &&
			v.Equal(tftypes.NewValue(tftypes.Number, big.NewFloat(0))):
			return tftypes.NewValue(tftypes.Number, nil), nil
		}
		return v, nil
	})
}

// skeleton is an object of type t whose required single nested attributes
// are skeletons in turn, and every other attribute null.
func skeleton(t tftypes.Type, attrs map[string]schema.Attribute) tftypes.Value {
	obj, ok := t.(tftypes.Object)
	if !ok {
		return tftypes.NewValue(t, nil)
	}
	vals := make(map[string]tftypes.Value, len(obj.AttributeTypes))
	for name, at := range obj.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
		if n, ok := attrs[name].(schema.SingleNestedAttribute); ok && n.IsRequired() {
			vals[name] = skeleton(at, n.Attributes)
		}
	}
	return tftypes.NewValue(t, vals)
}
