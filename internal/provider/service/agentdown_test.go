package service_test

import (
	"fmt"
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
)

// A restart while the agent of 10.0.0.2 is down: with agent_abnormal =
// "skip" its two instances stay pending with why and the apply succeeds;
// with "fail" they fail, the apply fails, and 10.0.0.2's later tier is held
// back (isolate_by = "host"). Either way every other instance restarts, the
// simulator holds nothing the state does not know, and once the agent is
// back the next apply restarts 10.0.0.2's instances alone.
func TestAccServiceFaults_agentDown(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := func(rev int, mode string) string {
			return serviceConfig(e, []svcGroup{{"web", 10, []int{1, 2, 3}}, {"app", 5, []int{1, 2}}},
				fmt.Sprintf("restart_triggers = { rev = \"%d\" }\n  agent_abnormal = %q\n  order = { isolate_by = \"host\" }\n  rollout = { max_fail_percentage = 50 }", rev, mode))
		}
		agent := func(down bool) func() { return func() { e.Sim.SetAgentDown(0, "10.0.0.2", down) } }
		key := func(k string) tfjsonpath.Path { return tfjsonpath.New("instances").AtMapKey(k) }
		pids := map[string]int64{}
		onHost2 := knownvalue.ListExact([]knownvalue.Check{
			tierCheck(1, "descending", 10, [][]string{{"svc/web@0:10.0.0.2"}}),
			tierCheck(2, "descending", 5, [][]string{{"svc/app@0:10.0.0.2"}}),
		})
		resumeHost2 := func(config string, restarts int) resource.TestStep {
			return resource.TestStep{
				PreConfig: func() { agent(false)(); _ = recordPIDs(e.Sim, pids)(nil) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), onHost2),
				}},
				ConfigStateChecks: countsAre(0, 0),
				Check: resource.ComposeAggregateTestCheckFunc(stateKnowsSim(e),
					func(*terraform.State) error { return samePIDs(e.Sim, pids, []string{"10.0.0.1", "10.0.0.3"}) },
					e.SimCheckOf("svc", "web", "10.0.0.2", acctest.Restarts(restarts))),
			}
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: cfg(1, "skip")},
				{
					PreConfig:          agent(true),
					Config:             cfg(2, "skip"),
					ExpectNonEmptyPlan: true,
					ConfigStateChecks: append(countsAre(0, 2),
						statecheck.ExpectKnownValue(addr, key("svc/web@0:10.0.0.2").AtMapKey("status"), knownvalue.StringExact("pending")),
						statecheck.ExpectKnownValue(addr, key("svc/web@0:10.0.0.2").AtMapKey("message"), knownvalue.StringRegexp(regexp.MustCompile(`^agent_abnormal = "skip": `))),
						statecheck.ExpectKnownValue(addr, key("svc/app@0:10.0.0.2").AtMapKey("status"), knownvalue.StringExact("pending")),
						statecheck.ExpectKnownValue(addr, key("svc/app@0:10.0.0.1").AtMapKey("status"), knownvalue.StringExact("running")),
					),
					Check: resource.ComposeAggregateTestCheckFunc(stateKnowsSim(e),
						e.SimCheckOf("svc", "web", "10.0.0.2", acctest.Restarts(0)),
						e.SimCheckOf("svc", "web", "10.0.0.3", acctest.Restarts(1)),
						e.SimCheckOf("svc", "app", "10.0.0.1", acctest.Restarts(1))),
				},
				resumeHost2(cfg(2, "skip"), 1),
				{
					PreConfig:   agent(true),
					Config:      cfg(3, "fail"),
					ExpectError: regexp.MustCompile(fmt.Sprintf(`svc/web@0:10.0.0.2: failed \(GSE code %d\)`, gse.HostAgentAbnormal)),
				},
				resumeHost2(cfg(3, "fail"), 2),
				{Config: cfg(3, "fail"), PlanOnly: true},
			},
		})
	})
}

// A create while the agent of 10.0.0.2 is down, with agent_abnormal =
// "skip", succeeds with that host's instances pending: through ESB the
// process is registered there (register_proc_info does not need the
// agent) and its start answered 117, so the state records it pending, not
// absent; through the gateway the agent is checked first and nothing is
// sent, so it is absent. Once the agent is back the next apply starts those
// two alone, in ascending priority, and the plan is then empty.
func TestAccServiceFaults_agentDownAtCreate(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := serviceConfig(e, []svcGroup{{"web", 10, []int{1, 2, 3}}, {"app", 5, []int{1, 2}}}, `agent_abnormal = "skip"`)
		key := func(k string) tfjsonpath.Path { return tfjsonpath.New("instances").AtMapKey(k) }
		left := "pending"
		if e.Gateway {
			left = "absent"
		}
		pids := map[string]int64{}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{
					PreConfig:          func() { e.Sim.SetAgentDown(0, "10.0.0.2", true) },
					Config:             cfg,
					ExpectNonEmptyPlan: true,
					ConfigStateChecks: append(countsAre(0, 2),
						statecheck.ExpectKnownValue(addr, key("svc/app@0:10.0.0.2").AtMapKey("status"), knownvalue.StringExact(left)),
						statecheck.ExpectKnownValue(addr, key("svc/web@0:10.0.0.2").AtMapKey("status"), knownvalue.StringExact(left)),
						statecheck.ExpectKnownValue(addr, key("svc/web@0:10.0.0.2").AtMapKey("message"), knownvalue.StringRegexp(regexp.MustCompile(`^agent_abnormal = "skip": `))),
					),
					Check: resource.ComposeAggregateTestCheckFunc(stateKnowsSim(e), recordPIDs(e.Sim, pids)),
				},
				{
					PreConfig: func() { e.Sim.SetAgentDown(0, "10.0.0.2", false) },
					Config:    cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListExact([]knownvalue.Check{
							tierCheck(1, "ascending", 5, [][]string{{"svc/app@0:10.0.0.2"}}),
							tierCheck(2, "ascending", 10, [][]string{{"svc/web@0:10.0.0.2"}}),
						})),
					}},
					ConfigStateChecks: countsAre(0, 0),
					Check: resource.ComposeAggregateTestCheckFunc(stateKnowsSim(e),
						func(*terraform.State) error { return samePIDs(e.Sim, pids, []string{"10.0.0.1", "10.0.0.3"}) },
						e.SimCheckOf("svc", "web", "10.0.0.2", acctest.HostedAndRunning)),
				},
				{Config: cfg, PlanOnly: true},
			},
		})
	})
}
