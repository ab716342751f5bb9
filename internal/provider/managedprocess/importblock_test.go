package managedprocess_test

import (
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// An import block kept after an adoption fails the plan once its for_each
// (over gse_cmdb_processes groups) gains a process GSE does not run yet; the
// error says to remove the block, and without it the plan creates that process.
func TestAccManagedProcess_importBlockLeftAfterAdoption(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		e.Register(t, gse.Meta{Namespace: "gse", Name: "proc-a"}, []string{"0:10.0.0.1"}, acctest.OpPtr(gse.OpStart))
		config := func(names string, block bool) string {
			cfg := `
locals {
  names = toset([` + names + `])
}

resource "gse_managed_process" "p" {
  for_each = local.names
  meta     = { namespace = "gse", name = each.key }
  hosts    = [{ ip = "10.0.0.1", bk_cloud_id = 0 }]
  running  = true
  spec = {
    identity       = { proc_name = each.key, setup_path = "/opt/${each.key}", pid_path = "/opt/${each.key}/p.pid", user = "root" }
    control        = { start_cmd = "./start.sh", stop_cmd = "./stop.sh", restart_cmd = "./restart.sh" }
    resource       = { cpu = 5, mem = 5 }
    monitor_policy = { auto_type = 1 }
  }
}
`
			if block {
				cfg += `
import {
  for_each = local.names
  to       = gse_managed_process.p[each.key]
  id       = "gse/${each.key}@0:10.0.0.1"
}
`
			}
			return cfg
		}
		// A CLI run: the testing framework's state checks do not take for_each keys.
		cli := acctest.NewCLIRunFrom(t, e, "1.7.0", config(`"proc-a"`, true))
		cli.Must("apply", "-auto-approve", "-no-color", "-input=false")
		if err := acctest.WriteMain(cli, config(`"proc-a", "proc-b"`, true)); err != nil {
			t.Fatal(err)
		}
		out, err := cli.Run("plan", "-no-color", "-input=false")
		if want := acctest.Wrapped("Process gse/proc-b not found on 1 of 1 hosts", "If the ID comes from an import block kept after an adoption",
			"remove the block"); err == nil || !want.MatchString(out) {
			t.Fatalf("plan with the import block left: %v, want %s in\n%s", err, want, out)
		}
		if err := acctest.WriteMain(cli, config(`"proc-a", "proc-b"`, false)); err != nil {
			t.Fatal(err)
		}
		cli.Must("apply", "-auto-approve", "-no-color", "-input=false")
		if p, ok := e.Sim.GSE().Process("gse", "proc-b", 0, "10.0.0.1"); !ok || acctest.HostedAndRunning(p) != nil {
			t.Errorf("proc-b after the apply without the import block: %+v", p)
		}
		cli.Must("destroy", "-auto-approve", "-no-color", "-input=false")
		if err := e.CheckSimEmpty(nil); err != nil {
			t.Error(err)
		}
	})
}
