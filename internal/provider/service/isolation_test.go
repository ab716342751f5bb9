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
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// twoSets is the simulator's topology for a service over two CMDB sets:
// 204 hosts, so that module 1003 (hosts 201-300) is in the second set.
func twoSets(o *simulator.Options) { o.CMDBHosts = 204 }

// Hosts 1 and 3 (module 1001, set 101) and 201 and 203 (module 1003, set
// 102): odd hosts, so that both paths name them by address.
var (
	setA = []int64{1, 3}
	setB = []int64{201, 203}
)

// twoSetService is a gse_service of agent (priority 0) and nginx (priority
// 10, two instances a host) on the service instances of setA and setB,
// isolated by set, with extra arguments. The sets come with processes' hosts
// (with_instances): instances is not given.
func twoSetService(e *acctest.Env, extra string) string {
	var ids []int64
	for _, h := range setA {
		ids = append(ids, simulator.CMDBModuleID(0)*100000+h)
	}
	for _, h := range setB {
		ids = append(ids, simulator.CMDBModuleID(2)*100000+h)
	}
	return e.CMDBConfig(fmt.Sprintf(`
data "gse_cmdb_processes" "biz" {
  bk_biz_id            = 2
  service_instance_ids = %s
  process_names        = ["nginx", "agent"]
  with_instances       = true
  namespace            = "iso"
}

resource "gse_service" "test" {
  bk_biz_id = 2
  processes = data.gse_cmdb_processes.biz.groups
  order     = { isolate_by = "set" }
  rollout   = { max_fail_percentage = 50 }
  %s
}
`, intList(ids), extra))
}

func intList(ids []int64) string {
	s := "["
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(id)
	}
	return s + "]"
}

// failStart makes the next start of a process on ip fail with GSE 117,
// whichever operate API carries it.
func failStart(sim *simulator.Server, ip string) {
	for _, api := range []string{"operate_proc_v2", "operate_proc_multi"} {
		sim.AddHostFault(simulator.HostFault{API: api, IP: ip, Ops: []int{int(gse.OpStart)}, Code: gse.HostAgentAbnormal, Message: "agent offline", Times: 1})
	}
}

// A start that fails in tier 1 (agent) on a host of set 101 holds back
// that set's later tier (nginx on both its hosts, pending with the set
// named) and leaves set 102 going: its nginx instances run. The next apply
// runs the held-back set alone, leaving every pid of set 102 and of the
// other host of set 101 as it was, then the plan is empty.
func TestAccService_isolateBySet(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, twoSets, func(t *testing.T, e *acctest.Env) {
		cfg := twoSetService(e, "")
		key := func(k string) tfjsonpath.Path { return tfjsonpath.New("instances").AtMapKey(k) }
		pids := map[string]int64{}
		held := regexp.MustCompile(`^not run: an instance of set 101 failed in tier 1$`)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{
					PreConfig:          func() { failStart(e.Sim, "10.0.0.1") },
					Config:             cfg,
					ExpectNonEmptyPlan: true,
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("failed_count"), knownvalue.Int64Exact(1)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_count"), knownvalue.Int64Exact(4)),
						statecheck.ExpectKnownValue(addr, key("iso/agent_1@0:10.0.0.1").AtMapKey("status"), knownvalue.StringExact("failed")),
						statecheck.ExpectKnownValue(addr, key("iso/agent_1@0:10.0.0.1").AtMapKey("code"), knownvalue.Int64Exact(gse.HostAgentAbnormal)),
						statecheck.ExpectKnownValue(addr, key("iso/agent_1@0:10.0.0.3").AtMapKey("status"), knownvalue.StringExact("running")),
						statecheck.ExpectKnownValue(addr, key("iso/nginx_1@0:10.0.0.1").AtMapKey("message"), knownvalue.StringRegexp(held)),
						statecheck.ExpectKnownValue(addr, key("iso/nginx_2@0:10.0.0.3").AtMapKey("message"), knownvalue.StringRegexp(held)),
						statecheck.ExpectKnownValue(addr, key("iso/nginx_2@0:10.0.0.3").AtMapKey("status"), knownvalue.StringExact("absent")),
						statecheck.ExpectKnownValue(addr, key("iso/nginx_1@0:10.0.0.201").AtMapKey("status"), knownvalue.StringExact("running")),
						statecheck.ExpectKnownValue(addr, key("iso/nginx_2@0:10.0.0.203").AtMapKey("status"), knownvalue.StringExact("running")),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						recordPIDs(e.Sim, pids),
						stateKnowsSim(e),
					),
				},
				{
					PreConfig: e.Sim.ClearFaults,
					Config:    cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListExact([]knownvalue.Check{
							tierCheck(1, "ascending", 0, [][]string{{"iso/agent_1@0:10.0.0.1"}}),
							tierCheck(2, "ascending", 10, [][]string{{"iso/nginx_1@0:10.0.0.1", "iso/nginx_1@0:10.0.0.3", "iso/nginx_2@0:10.0.0.1", "iso/nginx_2@0:10.0.0.3"}}),
						})),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("failed_count"), knownvalue.Int64Exact(0)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_count"), knownvalue.Int64Exact(0)),
					},
					Check: func(*terraform.State) error {
						return samePIDs(e.Sim, pids, []string{"10.0.0.3", "10.0.0.201", "10.0.0.203"})
					},
				},
				{Config: cfg, PlanOnly: true},
			},
		})
	})
}
