package service_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// A service of three processes starts in ascending CMDB priority (db, app,
// web: one task per tier, the tier's hosts in it), stops in descending
// priority, and a destroy leaves nothing in GSE. The plan shows the
// schedule before anything runs.
func TestAccService_priorityOrder(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		groups := []svcGroup{{"web", 10, []int{1, 2}}, {"db", 1, []int{3}}, {"app", 5, []int{1, 3}}}
		var mark int
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{
					PreConfig: acctest.MarkTasks(e.Sim, &mark),
					Config:    serviceConfig(e, groups, ""),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListExact([]knownvalue.Check{
							tierCheck(1, "ascending", 1, [][]string{{"svc/db@0:10.0.0.3"}}),
							tierCheck(2, "ascending", 5, [][]string{{"svc/app@0:10.0.0.1", "svc/app@0:10.0.0.3"}}),
							tierCheck(3, "ascending", 10, [][]string{{"svc/web@0:10.0.0.1", "svc/web@0:10.0.0.2"}}),
						})),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("instances").AtMapKey("svc/web@0:10.0.0.2").AtMapKey("action"), knownvalue.StringExact("start")),
					}},
					Check: expectTaskOrder(e.Sim, &mark, int(gse.OpStart), []string{"svc/db"}, []string{"svc/app"}, []string{"svc/web"}),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("failed_count"), knownvalue.Int64Exact(0)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("instances").AtMapKey("svc/db@0:10.0.0.3").AtMapKey("status"), knownvalue.StringExact("running")),
					},
				},
				{
					Config:   serviceConfig(e, groups, ""),
					PlanOnly: true,
				},
				{
					PreConfig: acctest.MarkTasks(e.Sim, &mark),
					Config:    serviceConfig(e, groups, "running = false"),
					Check:     expectTaskOrder(e.Sim, &mark, int(gse.OpStop), []string{"svc/web"}, []string{"svc/app"}, []string{"svc/db"}),
				},
			},
		})
	})
}

// tierCheck checks one element of schedule.
func tierCheck(n int64, direction string, priority int64, batches [][]string) knownvalue.Check {
	var bs []knownvalue.Check
	for _, b := range batches {
		var ks []knownvalue.Check
		for _, k := range b {
			ks = append(ks, knownvalue.StringExact(k))
		}
		bs = append(bs, knownvalue.ListExact(ks))
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"tier": knownvalue.Int64Exact(n), "direction": knownvalue.StringExact(direction), "priority": knownvalue.Int64Exact(priority), "batches": knownvalue.ListExact(bs),
		"canary": knownvalue.Bool(false),
	})
}
