package service_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// A create whose tier-1 instance on 10.0.0.3 fails (GSE 117 on its start)
// with isolate_by = "host" and max_fail_percentage = 50 keeps going elsewhere: app on 10.0.0.3 waits
// (pending), app and web on 10.0.0.1 and 10.0.0.2 run. The service is kept
// with a warning, not tainted; the next plan acts on the two instances of
// 10.0.0.3 alone, and its apply leaves every other pid as it was.
func TestAccService_partialCreateResumes(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		groups := []svcGroup{{"web", 10, []int{1, 2}}, {"db", 1, []int{3}}, {"app", 5, []int{1, 3}}}
		cfg := serviceConfig(e, groups, `order = { isolate_by = "host" }
  rollout = { max_fail_percentage = 50 }`)
		pids := map[string]int64{}
		keepPIDs := func(ips ...string) resource.TestCheckFunc {
			return func(*terraform.State) error { return samePIDs(e.Sim, pids, ips) }
		}
		key := func(k string) tfjsonpath.Path { return tfjsonpath.New("instances").AtMapKey(k) }
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{
					PreConfig: func() {
						// The first start on 10.0.0.3 fails, whichever API carries it.
						for _, api := range []string{"operate_proc_v2", "operate_proc_multi"} {
							e.Sim.AddHostFault(simulator.HostFault{API: api, IP: "10.0.0.3", Ops: []int{int(gse.OpStart)}, Code: gse.HostAgentAbnormal, Message: "agent offline", Times: 1})
						}
					},
					Config:             cfg,
					ExpectNonEmptyPlan: true, // the two instances of 10.0.0.3
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("failed_count"), knownvalue.Int64Exact(1)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_count"), knownvalue.Int64Exact(1)),
						statecheck.ExpectKnownValue(addr, key("svc/db@0:10.0.0.3").AtMapKey("code"), knownvalue.Int64Exact(gse.HostAgentAbnormal)),
						statecheck.ExpectKnownValue(addr, key("svc/app@0:10.0.0.3").AtMapKey("message"), knownvalue.StringRegexp(regexp.MustCompile(`host 0:10.0.0.3 failed in tier 1`))),
						statecheck.ExpectKnownValue(addr, key("svc/web@0:10.0.0.2").AtMapKey("status"), knownvalue.StringExact("running")),
					},
					Check: recordPIDs(e.Sim, pids),
				},
				{
					PreConfig: e.Sim.ClearFaults,
					Config:    cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListExact([]knownvalue.Check{
							tierCheck(1, "ascending", 1, [][]string{{"svc/db@0:10.0.0.3"}}),
							tierCheck(2, "ascending", 5, [][]string{{"svc/app@0:10.0.0.3"}}),
						})),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("failed_count"), knownvalue.Int64Exact(0)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_count"), knownvalue.Int64Exact(0)),
					},
					Check: keepPIDs("10.0.0.1", "10.0.0.2"),
				},
				{Config: cfg, PlanOnly: true},
			},
		})
	})
}
