package processoperation

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/gsekit"
)

// validateOperationCommand refuses an operation on a GSE process whose
// command is unset or empty, as GSEKit refuses to send it
// (gsekit.OpCommand): the agent would fail it on every host at apply.
func validateOperationCommand(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) {
	var op, ns, name types.String
	var control types.Object
	target := path.Root("gse")
	for _, a := range []struct {
		at   path.Path
		into any
	}{
		{path.Root("op"), &op}, {target.AtName("spec").AtName("control"), &control},
		{target.AtName("meta").AtName("namespace"), &ns}, {target.AtName("meta").AtName("name"), &name},
	} {
		if d := config.GetAttribute(ctx, a.at, a.into); d.HasError() {
			return // gse is unset, or not known yet
		}
	}
	if op.IsUnknown() || control.IsNull() || control.IsUnknown() {
		return
	}
	field := gsekit.OpCommand[operations[op.ValueString()]]
	cmd, _ := control.Attributes()[field].(types.String)
	if field == "" || cmd.IsUnknown() || (!cmd.IsNull() && cmd.ValueString() != "") {
		return
	}
	process := "the process"
	if !ns.IsUnknown() && !name.IsUnknown() {
		process = "process " + ns.ValueString() + "/" + name.ValueString()
	}
	at := target.AtName("spec").AtName("control").AtName(field)
	diags.AddAttributeError(at, fmt.Sprintf("op = %q needs %s", op.ValueString(), at),
		fmt.Sprintf("%s runs %s of %s on every host, and it is empty: the agent would fail the operation on each host at apply, and GSEKit refuses to send it. "+
			"Set %s, or choose another op.", op.ValueString(), at, process, at))
}
