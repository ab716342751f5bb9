package spec

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Meta is the meta attribute of gse_managed_process: the process's namespace
// and name, and its labels.
type Meta struct {
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
	Labels    types.Map    `tfsdk:"labels"`
}

// Expand is the meta as GSE takes it, labels included.
func (m Meta) Expand(ctx context.Context) (gse.Meta, diag.Diagnostics) {
	out := MetaRef{Namespace: m.Namespace, Name: m.Name}.Expand()
	var diags diag.Diagnostics
	if !m.Labels.IsNull() && !m.Labels.IsUnknown() {
		diags = m.Labels.ElementsAs(ctx, &out.Labels, false)
	}
	return out, diags
}

// MetaRef names a process without its labels: the meta attribute of
// gse_process_status and of gse_process_operation's gse target, and the
// identity of gse_managed_process.
type MetaRef struct {
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
}

// Expand is the meta as GSE takes it.
func (m MetaRef) Expand() gse.Meta {
	return gse.Meta{Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString()}
}
