package processoperation_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// An operation sends the labels it is given, so a server that takes the
// process's record from the operation (the simulator's default, replace)
// keeps them: the process's resource plans nothing after it. A change of
// the labels alone updates the operation without running it again.
func TestAccProcessOperation_labels(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		config := func(team string) string {
			proc := acctest.Proc{Hosts: []string{"0:10.0.0.1", "0:10.0.0.2"}, Labels: `{ team = "` + team + `" }`, Extra: "running = true"}
			return e.Config(proc) + `
resource "gse_process_operation" "test" {
  op       = "restart"
  triggers = { config = "v1" }
  gse = {
    meta  = { namespace = "gse", name = gse_managed_process.test.meta.name, labels = gse_managed_process.test.meta.labels }
    hosts = [for h in gse_managed_process.test.hosts : { ip = h.ip, bk_cloud_id = h.bk_cloud_id }]
    spec  = gse_managed_process.test.spec
  }
}
`
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{
					Config: config("ops"),
					Check: resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.1", acctest.Restarts(1)),
						e.SimCheck(0, "10.0.0.1", acctest.HasLabels(map[string]string{"team": "ops"}))),
					ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				},
				{
					Config: config("dev"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(opAddr, plancheck.ResourceActionUpdate),
					}},
					Check: resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.2", acctest.Restarts(1)),
						e.SimCheck(0, "10.0.0.2", acctest.HasLabels(map[string]string{"team": "dev"}))),
				},
			},
		})
	})
}
