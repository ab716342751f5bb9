package service_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// One instance stopped out of band plans its start alone (a one-tier,
// one-batch schedule), and the apply starts it and nothing else. A restart
// trigger with web on 10.0.0.2 held restarts every other instance, web
// before app, and leaves the held one's pid.
func TestAccService_driftAndHold(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		groups := []svcGroup{{"web", 10, []int{1, 2}}, {"app", 5, []int{1, 2}}}
		cfg := func(extra string) string { return serviceConfig(e, groups, extra) }
		pids := map[string]int64{}
		var mark int
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: cfg(`restart_triggers = { rev = "1" }`), Check: recordPIDs(e.Sim, pids)},
				{
					PreConfig: func() {
						if err := e.Sim.GSE().Drift(simulator.DriftStop, "svc", "app", 0, "10.0.0.2"); err != nil {
							t.Fatal(err)
						}
						acctest.MarkTasks(e.Sim, &mark)()
					},
					Config: cfg(`restart_triggers = { rev = "1" }`),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListExact([]knownvalue.Check{
							tierCheck(1, "ascending", 5, [][]string{{"svc/app@0:10.0.0.2"}}),
						})),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("instances").AtMapKey("svc/web@0:10.0.0.2").AtMapKey("status"), knownvalue.StringExact("running")),
					}},
					Check: resource.ComposeAggregateTestCheckFunc(
						expectTaskOrder(e.Sim, &mark, int(gse.OpStart), []string{"svc/app"}),
						func(*terraform.State) error { return samePIDs(e.Sim, pids, []string{"10.0.0.1"}) },
					),
				},
				{
					PreConfig: func() { acctest.MarkTasks(e.Sim, &mark)(); _ = recordPIDs(e.Sim, pids)(nil) },
					Config:    cfg(`restart_triggers = { rev = "2" }` + "\n  hold = [\"svc/web@0:10.0.0.2\"]"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListExact([]knownvalue.Check{
							tierCheck(1, "descending", 10, [][]string{{"svc/web@0:10.0.0.1"}}),
							tierCheck(2, "descending", 5, [][]string{{"svc/app@0:10.0.0.1", "svc/app@0:10.0.0.2"}}),
						})),
					}},
					Check: resource.ComposeAggregateTestCheckFunc(
						expectTaskOrder(e.Sim, &mark, int(gse.OpRestart), []string{"svc/web"}, []string{"svc/app"}),
						e.SimCheckOf("svc", "web", "10.0.0.2", acctest.Restarts(0)),
						e.SimCheckOf("svc", "web", "10.0.0.1", acctest.Restarts(1)),
					),
				},
			},
		})
	})
}
