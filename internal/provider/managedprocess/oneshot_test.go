package managedprocess_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// A one-shot process (auto_type = 2) with running = true: GSE answers its
// start with 836 once it has run and exited, which counts as done; the
// stopped process is not drift, so the plan after apply is empty and no
// apply starts it again; a restart trigger runs it once more (836 again).
func TestAccManagedProcess_oneShot(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := func(trigger string) string {
			c := e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "1:10.0.0.2"}, Extra: "running = true\n  restart_triggers = { run = \"" + trigger + "\" }"})
			return acctest.Edited(t, c, "auto_type = 1", "auto_type = 2")
		}
		ranAndExited := func(restarts int) func(simulator.Process) error {
			return func(p simulator.Process) error {
				if p.Running || !p.Hosted || p.LastStartTime == 0 || p.Restarts != restarts {
					return fmt.Errorf("want hosted, run %d restarts ago and exited, got %+v", restarts, p)
				}
				return nil
			}
		}
		starts := func() int { return e.Sim.Calls("operate_proc_v2") + e.Sim.Calls("operate_proc_multi") }
		var before int
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{
					Config: cfg("1"),
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("running"), knownvalue.Bool(true)),
						statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("managed"), knownvalue.Bool(true)),
						// Create reads back the hosts it changed: the one-shot ran and exited.
						statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("host_status").AtMapKey("0:10.0.0.1").AtMapKey("status"), knownvalue.StringExact("stopped")),
					},
					Check: resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.1", ranAndExited(0)), e.SimCheck(1, "10.0.0.2", ranAndExited(0))),
				},
				{
					// Refreshed: GSE reports it stopped, which is what a one-shot that ran is.
					PreConfig:        func() { before = starts() },
					Config:           cfg("1"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("running"), knownvalue.Bool(true)),
						statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("host_status").AtMapKey("1:10.0.0.2").AtMapKey("status"), knownvalue.StringExact("stopped")),
					},
					Check: func(*terraform.State) error {
						if n := starts() - before; n != 0 {
							return fmt.Errorf("%d operations sent for an unchanged one-shot, want 0", n)
						}
						return nil
					},
				},
				{
					Config:           cfg("2"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
					Check:            resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.1", ranAndExited(1)), e.SimCheck(1, "10.0.0.2", ranAndExited(1))),
				},
			},
		})
	})
}
