package managedprocess_test

import (
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// A running process without stop_cmd is started and hosted, and where it is
// removed (a host leaving, then the destroy) the plan warns that it keeps
// running and the apply unhosts it, never sending a stop: GSE's stop runs
// stop_cmd, and GSEKit sends none without it.
func TestAccManagedProcess_noStopCmd(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := func(hosts ...string) string {
			c := acctest.Edited(t, e.Config(acctest.Proc{Hosts: hosts, Extra: "running = true"}), `stop_cmd = "./stop.sh", `, "")
			return strings.TrimPrefix(c, e.ProviderBlock())
		}
		noStop := func(step string) {
			for _, task := range e.Sim.Tasks() {
				for _, tg := range task.Targets {
					if tg.Op == int(gse.OpStop) {
						t.Errorf("%s: %s sent a stop (op_type 1) to %s, whose spec has no stop_cmd", step, task.API, tg.IP)
					}
				}
			}
		}
		planWarns := func(step, out string) {
			if want := acctest.Wrapped("The process keeps running where it is removed", "on 1 host but cannot stop it", "stop_cmd is empty"); !want.MatchString(out) {
				t.Errorf("%s: want %s in\n%s", step, want, out)
			}
		}
		run := acctest.NewCLIRunFrom(t, e, "1.7.0", cfg("0:10.0.0.1", "0:10.0.0.2"))
		run.Must("apply", "-auto-approve", "-no-color", "-input=false")
		if err := e.SimCheck(0, "10.0.0.2", acctest.HostedAndRunning)(nil); err != nil {
			t.Fatal(err)
		}
		if err := acctest.WriteMain(run, cfg("0:10.0.0.1")); err != nil {
			t.Fatal(err)
		}
		planWarns("a host leaving", run.Must("plan", "-no-color", "-input=false"))
		run.Must("apply", "-auto-approve", "-no-color", "-input=false")
		noStop("a host leaving")
		planWarns("destroy", run.Must("plan", "-destroy", "-no-color", "-input=false"))
		run.Must("destroy", "-auto-approve", "-no-color", "-input=false")
		noStop("destroy")
		if err := e.CheckSimEmpty(nil); err != nil {
			t.Error(err)
		}
	})
}
