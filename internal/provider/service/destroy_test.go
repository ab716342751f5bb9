package service_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
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

// A destroy whose first tier's stop reply is cut (GSE stopped web, the
// provider cannot know) fails with web failed and app pending, and keeps
// the service in the state with every instance: a refresh finds them all
// known. The configuration applied again runs every instance, and the
// destroy after it stops in descending priority, web before app, and leaves
// nothing in GSE.
func TestAccService_destroyReplyLost(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := serviceConfig(e, []svcGroup{{"web", 10, []int{1, 2, 3}}, {"app", 5, []int{1, 2}}}, "")
		var mark int
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy: resource.ComposeAggregateTestCheckFunc(e.CheckSimEmpty,
				expectTaskOrder(e.Sim, &mark, int(gse.OpStop), []string{"svc/web"}, []string{"svc/app"})),
			Steps: []resource.TestStep{
				{Config: cfg},
				{
					PreConfig: func() { e.Sim.AddFault(simulator.Fault{API: "operate_proc_v2", Acted: true, Cut: true}) },
					Config:    cfg,
					Destroy:   true,
					ExpectError: regexp.MustCompile(`(?s)Could not remove the whole service.*3 instances failed and 2 did not run:.*` +
						`svc/app@0:10.0.0.2: pending: not run: 3 of the release's 5 instances failed.*svc/web@0:10.0.0.1: failed: operate_proc_v2: HTTP 200 reply unreadable`),
				},
				{
					RefreshState:       true,
					ExpectNonEmptyPlan: true, // web, stopped by the cut destroy, is to start again
					Check:              resource.ComposeAggregateTestCheckFunc(faultsFired(e), stateKnowsSim(e)),
				},
				{
					Config: cfg,
					Check: resource.ComposeAggregateTestCheckFunc(stateKnowsSim(e), markTasks(e, &mark),
						e.SimCheckOf("svc", "web", "10.0.0.1", acctest.HostedAndRunning), e.SimCheckOf("svc", "app", "10.0.0.2", acctest.HostedAndRunning)),
				},
			},
		})
	})
}
