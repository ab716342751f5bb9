package managedprocess_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// twoOfOneName is two gse_managed_process of the same namespace and name,
// a on hostsA and b on hostsB (extraB: more arguments of b), rolled out one
// host at a time.
func twoOfOneName(e *acctest.Env, hostsA, hostsB []string, extraB string) string {
	one := func(name string, hs []string, extra string) string {
		cfg := e.Config(acctest.Proc{Hosts: hs, Extra: "running = true\n  rollout = { batch_size = 1 }\n  " + extra})
		cfg = strings.Replace(cfg, e.ProviderBlock(), "", 1)
		return strings.Replace(cfg, `resource "gse_managed_process" "test"`, fmt.Sprintf(`resource "gse_managed_process" %q`, name), 1)
	}
	return e.ProviderBlock() + one("a", hostsA, "") + one("b", hostsB, extraB)
}

// Two resources of one namespace and name on disjoint hosts (what
// gse_cmdb_processes gives a name whose spec differs by module) each plan,
// apply, refresh, roll out and destroy only their own hosts; an overlap is
// refused, naming the host.
func TestAccManagedProcess_sameNameDisjointHosts(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		a, b := []string{"0:10.0.0.1", "0:10.0.0.2"}, []string{"0:10.0.0.3"}
		restarts := func(ip string, want int) resource.TestCheckFunc {
			return e.SimCheck(0, ip, func(p simulator.Process) error {
				if p.Restarts != want {
					return fmt.Errorf("%s restarted %d times, want %d", ip, p.Restarts, want)
				}
				return nil
			})
		}
		const trigger = `restart_triggers = { v = "2" }`
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{
					Config: twoOfOneName(e, a, b, ""),
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("gse_managed_process.a", "hosts.#", "2"),
						resource.TestCheckResourceAttr("gse_managed_process.b", "hosts.#", "1"),
						e.SimCheck(0, "10.0.0.3", acctest.HostedAndRunning),
					),
					ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				},
				{
					// A restart rolled out by b reaches b's host only.
					Config: twoOfOneName(e, a, b, trigger),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("gse_managed_process.a", plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("gse_managed_process.b", plancheck.ResourceActionUpdate),
					}},
					Check: resource.ComposeAggregateTestCheckFunc(restarts("10.0.0.1", 0), restarts("10.0.0.2", 0), restarts("10.0.0.3", 1)),
				},
				{
					// b reaching into a's hosts is refused, naming the host both would hold.
					Config:      twoOfOneName(e, a, []string{"0:10.0.0.3", "0:10.0.0.2"}, trigger),
					ExpectError: regexp.MustCompile(`(?s)10\.0\.0\.2.*(registered|hosted)`),
				},
				{
					Config: twoOfOneName(e, a, b, trigger),
					Check: resource.ComposeAggregateTestCheckFunc(
						e.SimCheck(0, "10.0.0.1", acctest.HostedAndRunning), e.SimCheck(0, "10.0.0.2", acctest.HostedAndRunning),
						e.SimCheck(0, "10.0.0.3", acctest.HostedAndRunning),
					),
					ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				},
			},
		})
	})
}
