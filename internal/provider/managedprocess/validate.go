package managedprocess

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/gsekit"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
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

// commandSettings are what a configuration asks GSE to run, each with the
// operation that runs it.
type commandSettings struct {
	process                         string // namespace/name, "" when not known yet
	managed, running                types.Bool
	restartTriggers, reloadTriggers types.Map
}

// validateCommands rejects a setting that runs an operation whose command is
// unset or empty, as GSEKit refuses to send it (gsekit.OpCommand): the
// agent would fail it on every host at apply time.
func validateCommands(c commandSettings, def spec.Model, diags *diag.Diagnostics) {
	known := !c.running.IsUnknown() && !c.running.IsNull()
	start, stop := known && c.running.ValueBool(), known && !c.running.ValueBool()
	hosted := !c.managed.IsUnknown() && (c.managed.IsNull() || c.managed.ValueBool())
	for _, s := range []struct {
		set                    bool
		setting, does, instead string
		op                     gse.OpType
	}{
		{start, "running = true", "starts %s (op_type 0) with", "leave running unset", gse.OpStart},
		{stop, "running = false", "stops %s (op_type 1) with", "leave running unset", gse.OpStop},
		{hosted && !start, "managed = true", "(the default) hosts %s (op_type 3), which the agent pulls up again with", "set managed = false", gse.OpHost},
		{!c.restartTriggers.IsNull(), "restart_triggers", "restart %s (op_type 7) when they change, with", "remove restart_triggers", gse.OpRestart},
		{!c.reloadTriggers.IsNull(), "reload_triggers", "reload %s (op_type 8) when they change, with", "remove reload_triggers", gse.OpReload},
	} {
		name := gsekit.OpCommand[s.op]
		cmd := def.Command(name)
		if !s.set || cmd.IsUnknown() || (!cmd.IsNull() && cmd.ValueString() != "") {
			continue
		}
		at := controlPath.AtName(name)
		process := "the process"
		if c.process != "" {
			process = "process " + c.process
		}
		diags.AddAttributeError(at, fmt.Sprintf("%s needs %s", s.setting, at),
			fmt.Sprintf("%s %s %s on every host, and it is empty: the agent would fail the operation on each host at apply, and GSEKit refuses to send it. "+
				"Set %s (for a group of gse_cmdb_processes, in CMDB), or %s.", s.setting, fmt.Sprintf(s.does, process), at, at, s.instead))
	}
}

// processName is meta's namespace/name, "" while either is unknown.
func processName(meta types.Object) string {
	if meta.IsNull() || meta.IsUnknown() {
		return ""
	}
	ns, okNS := meta.Attributes()["namespace"].(types.String)
	name, okName := meta.Attributes()["name"].(types.String)
	if !okNS || !okName || ns.IsUnknown() || name.IsUnknown() {
		return ""
	}
	return ns.ValueString() + "/" + name.ValueString()
}
