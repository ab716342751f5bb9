package managedprocess

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// liveElsewhereError names the hosts where a gateway create found the
// process already hosted (see plumbing.RegisteredElsewhere).
type liveElsewhereError struct {
	meta  gse.Meta
	hosts []gse.Host
}

func (e *liveElsewhereError) Error() string {
	names := make([]string, len(e.hosts))
	for i, h := range e.hosts {
		names[i] = h.Address()
	}
	return fmt.Sprintf("get_proc_status_v2: process %s is already hosted on %s; nothing was sent. %s.",
		e.meta, strings.Join(names, ", "), plumbing.RegisteredElsewhere)
}

// refuseLive is, through the gateway, the check an ESB register makes with
// 850: it fails when the process is hosted on any of hosts. What a destroy
// leaves on GSE 2.0, which has no unregister, is a record unhosted (and
// stopped, or still running when running was unset): it is created over. An
// unhosted owner loses nothing to that: its destroy would only unhost or stop
// what it had, and a hosted or running object is hosted.
func refuseLive(ctx context.Context, c *gse.Client, meta gse.Meta, hosts []gse.Host) error {
	if !c.Gateway() {
		return nil // register_proc_info answers 850
	}
	byKey, err := status.Find(ctx, c, meta, hosts)
	if err != nil {
		return err
	}
	var live []gse.Host
	for _, h := range hosts {
		if e, ok := byKey[h.Key()]; ok && e.IsAuto {
			live = append(live, h)
		}
	}
	if len(live) > 0 {
		return &liveElsewhereError{meta: meta, hosts: live}
	}
	return nil
}

// warnRecordsLeft says, after a destroy through the GSE 2.0 gateway, which
// process records stay: GSE 2.0 has no unregister, so a destroy stops or
// unhosts the process and GSE keeps its record (see register).
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
