package managedprocess

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	controlPath = path.Root("spec").AtName("control")
	policyPath  = path.Root("spec").AtName("monitor_policy")
)

// validateRunState rejects run states GSE cannot hold: a start hosts the
// process and a stop unhosts it, so the other pairings would drift forever.
func validateRunState(managed, running types.Bool, diags *diag.Diagnostics) {
	if managed.IsUnknown() || running.IsUnknown() || running.IsNull() {
		return
	}
	wantManaged := managed.IsNull() || managed.ValueBool()
	switch {
	case wantManaged && !running.ValueBool():
		diags.AddAttributeError(path.Root("running"), "running = false needs managed = false",
			"GSE unhosts a process when it stops it (op_type 1), and a hosted resident process is pulled up again by the agent. Set managed = false to keep the process stopped, or leave running unset.")
	case !wantManaged && running.ValueBool():
		diags.AddAttributeError(path.Root("running"), "running = true needs managed = true",
			"GSE hosts a process when it starts it (op_type 0), so managed = false could never hold. Set managed = true, or leave running unset.")
	}
}

// needsCommand rejects a setting that runs an operation whose command is unset:
// the agent would fail it on every host at apply time.
func needsCommand(set bool, setting, does string, cmd types.String, at path.Path, diags *diag.Diagnostics) {
	if set && cmd.IsNull() {
		diags.AddAttributeError(at, fmt.Sprintf("%s needs %s", setting, at),
			fmt.Sprintf("%s %s, which runs %s on every host; it is unset. Set %s, or remove %s.", setting, does, at, at, setting))
	}
}
