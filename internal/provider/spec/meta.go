package spec

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

type Meta struct {
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
	Labels    types.Map    `tfsdk:"labels"`
}

// Expand is the meta as GSE takes it, labels included.
func (m Meta) Expand(ctx context.Context) (gse.Meta, diag.Diagnostics) {
	out := gse.Meta{Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString()}
	var diags diag.Diagnostics
	if !m.Labels.IsNull() && !m.Labels.IsUnknown() {
		diags = m.Labels.ElementsAs(ctx, &out.Labels, false)
	}
	return out, diags
}

type MetaRef struct {
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
}
