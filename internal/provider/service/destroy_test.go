package service_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// A destroy after a create that failed in part (db's start on 10.0.0.3
// failed, app there never ran) stops the service in descending priority,
// web, then app, then db, one task a tier, and leaves nothing in GSE:
// neither the failed instance nor the pending one is forgotten.
func TestAccService_destroyAfterPartialCreate(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		groups := []svcGroup{{"web", 10, []int{1, 2}}, {"db", 1, []int{3}}, {"app", 5, []int{1, 3}}}
		var mark int
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy: resource.ComposeAggregateTestCheckFunc(e.CheckSimEmpty,
				expectTaskOrder(e.Sim, &mark, int(gse.OpStop), []string{"svc/web"}, []string{"svc/app"}, []string{"svc/db"})),
			Steps: []resource.TestStep{{
				PreConfig: func() { failStart(e.Sim, "10.0.0.3") },
				Config: serviceConfig(e, groups, `order = { isolate_by = "host" }
  rollout = { max_fail_percentage = 50 }`),
				ExpectNonEmptyPlan: true,
				ConfigStateChecks:  countsAre(1, 1),
				Check:              resource.ComposeAggregateTestCheckFunc(stateKnowsSim(e), markTasks(e, &mark)),
			}},
		})
	})
}
