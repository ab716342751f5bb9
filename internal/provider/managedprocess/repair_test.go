package managedprocess_test

import (
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// Repairing one stopped host of a fleet rolled out in batches acts on that
// host alone, in one batch: the plan names it in a warning, and the apply
// starts it (a start hosts it again too) and sends nothing to the others.
func TestAccManagedProcess_repairTouchesOnlyDrifted(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := strings.TrimPrefix(e.Config(acctest.Proc{Hosts: acctest.Fleet(8),
			Extra: "running = true\n  rollout = { batch_size = \"25%\", pause = \"1ms\" }"}), e.ProviderBlock())
		cli := acctest.NewCLIRunFrom(t, e, "1.0.0", cfg)
		cli.Must("apply", "-auto-approve", "-no-color", "-input=false")
		if err := e.Sim.GSE().Drift(simulator.DriftStop, "gse", "proc-test", 0, "10.0.0.3"); err != nil {
			t.Fatal(err)
		}
		out, err := cli.Run("plan", "-no-color", "-input=false")
		if err != nil || !wordsRegexp("1 host drifted", "GSE reports the process out of its planned state on: 0:10.0.0.3 (stopped, not hosted).").MatchString(out) {
			t.Fatalf("plan after 10.0.0.3 stopped: %v, want a warning naming it\n%s", err, out)
		}
		tasks := len(e.Sim.Tasks())
		cli.Must("apply", "-auto-approve", "-no-color", "-input=false")
		var sent []simulator.TaskTarget
		for _, task := range e.Sim.Tasks()[tasks:] {
			sent = append(sent, task.Targets...)
		}
		if len(sent) != 1 || sent[0].IP != "10.0.0.3" || sent[0].Op != int(gse.OpStart) {
			t.Errorf("the repair sent %+v, want one start of 10.0.0.3", sent)
		}
		if out, code, _ := cli.Exit("plan", "-detailed-exitcode", "-no-color", "-input=false"); code != 0 {
			t.Errorf("plan after the repair: exit %d, want 0\n%s", code, out)
		}
		cli.Must("destroy", "-auto-approve", "-no-color", "-input=false")
		if err := e.CheckSimEmpty(nil); err != nil {
			t.Fatal(err)
		}
	})
}
