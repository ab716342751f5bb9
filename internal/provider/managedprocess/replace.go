package managedprocess

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// warnRecordsLeft says, after a destroy through the GSE 2.0 gateway, which
// process records stay: GSE 2.0 has no unregister, so a destroy stops or
// unhosts the process and GSE keeps its record (see the register step of package lifecycle).
func warnRecordsLeft(diags *diag.Diagnostics, c *gse.Client, meta gse.Meta, hosts []gse.Host, stopped bool) {
	if !c.Gateway() || len(hosts) == 0 {
		return
	}
	state := "unhosted"
	if stopped {
		state = "stopped and unhosted"
	}
	diags.AddWarning(fmt.Sprintf("Process %s stays registered on GSE 2.0, %s", meta, state),
		fmt.Sprintf("The GSE 2.0 API gateway has no API that removes a process, so destroy %s it and GSE keeps its record on %s; "+
			"get_proc_status_v2 still reports it there. A later gse_managed_process with namespace %q and name %q creates it again over that record.",
			map[bool]string{true: "stopped", false: "unhosted"}[stopped], strings.Join(plumbing.Each(hosts, gse.Host.Address), ", "), meta.Namespace, meta.Name))
}

// refuseSpeclessDelete fails, before any call, the destroy of a process
// imported through the GSE 2.0 gateway and never applied: its state has no
// spec (no API returns it), and the gateway stops or unhosts a process only
// with operate_proc_v2, which carries the full spec. ESB's operate_proc acts
// on the registered spec, so there such a destroy goes ahead.
func refuseSpeclessDelete(diags *diag.Diagnostics, meta gse.Meta, hosts []gse.Host) {
	diags.AddError(fmt.Sprintf("Cannot destroy process %s through the GSE 2.0 gateway without its spec", meta),
		fmt.Sprintf("The process was imported and has not been applied since, so the state holds no spec (GSE returns none), and the GSE 2.0 "+
			"API gateway stops or unhosts a process only with operate_proc_v2, which carries the full spec. Nothing was changed on %s.\n\n"+
			"Write the process's spec in the configuration and apply once (the apply sends it), then destroy; or run "+
			"`terraform state rm` on the resource to forget it and leave the process as it is.",
			strings.Join(plumbing.Each(hosts, gse.Host.Address), ", ")))
}
