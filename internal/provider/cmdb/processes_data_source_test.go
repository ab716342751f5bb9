package cmdb_test

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// processesConfig is every process of business 2 from CMDB, one
// gse_managed_process per group, running.
func processesConfig(e *acctest.Env, args string) string {
	return e.CMDBConfig(fmt.Sprintf(`
data "gse_cmdb_processes" "biz" {
  bk_biz_id = 2
  %s
}

resource "gse_managed_process" "p" {
  for_each = data.gse_cmdb_processes.biz.groups
  meta     = each.value.meta
  spec     = each.value.spec
  hosts    = each.value.hosts
  running  = true
}
`, args))
}

// groupAddr is the address of group key's resource.
func groupAddr(key string) string { return fmt.Sprintf("gse_managed_process.p[%q]", key) }

// running counts the simulator's running processes named name, and the hosts they run on.
func running(e *acctest.Env, name string) int {
	n := 0
	for _, p := range e.Sim.GSE().Processes() {
		if p.Namespace == "GSEKIT_BIZ_2" && p.Name == name && p.Running {
			n++
		}
	}
	return n
}

// TestAccCMDBProcesses_forEach: a business's processes as CMDB defines them,
// registered, hosted and running through for_each over groups; the agent
// alias, whose paths name the module, lives as two groups of one name on
// disjoint hosts; legacy's ${inst_id} is skipped, named; a proc_num and a
// command edited in CMDB plan exactly the instances they add and update.
func TestAccCMDBProcesses_forEach(t *testing.T) {
	inCMDBModes(t, 200, func(t *testing.T, e *acctest.Env) {
		hosts := map[bool]int{false: 194, true: 198}[e.Gateway] // through ESB, 4 IPv6-only and 2 addressless hosts are left out
		ds := "data.gse_cmdb_processes.biz"
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{
				{
					Config: processesConfig(e, ""),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(ds, tfjsonpath.New("groups"), knownvalue.MapSizeExact(4)),
						statecheck.ExpectKnownValue(ds, tfjsonpath.New("groups").AtMapKey("GSEKIT_BIZ_2/nginx_2").AtMapKey("spec").AtMapKey("control").AtMapKey("start_cmd"),
							knownvalue.StringExact("./nginx -p 8081")),
						statecheck.ExpectKnownValue(ds, tfjsonpath.New("groups").AtMapKey("GSEKIT_BIZ_2/agent_1/tpl2-mod1002").AtMapKey("spec").AtMapKey("identity").AtMapKey("setup_path"),
							knownvalue.StringExact("/data/exporter/mod-1002")),
						statecheck.ExpectKnownValue(ds, tfjsonpath.New("groups").AtMapKey("GSEKIT_BIZ_2/agent_1").AtMapKey("spec").AtMapKey("monitor_policy"),
							knownvalue.ObjectPartial(map[string]knownvalue.Check{"auto_type": knownvalue.Int64Exact(1), "start_check_secs": knownvalue.Int64Exact(3), "op_timeout": knownvalue.Int64Exact(60)})),
						statecheck.ExpectKnownValue(ds, tfjsonpath.New("groups").AtMapKey("GSEKIT_BIZ_2/nginx_1").AtMapKey("priority"), knownvalue.Int64Exact(10)),
						// Rows come by bk_process_id: nginx's and agent's on hosts without a usable address, then legacy's.
						statecheck.ExpectKnownValue(ds, tfjsonpath.New("skipped").AtSliceIndex(3*(200-hosts)), knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"bk_process_name": knownvalue.StringExact("legacy"), "bk_host_id": knownvalue.Int64Exact(1),
							"reason": knownvalue.StringRegexp(regexp.MustCompile(`^start_cmd holds \$\{inst_id\}: inst_id numbers instances across hosts in GSEKit's database`)),
						})),
						acctest.SimState(func() error {
							for name, want := range map[string]int{"nginx_1": hosts, "nginx_2": hosts, "agent_1": hosts, "legacy_1": 0} {
								if n := running(e, name); n != want {
									return fmt.Errorf("%s runs on %d hosts, want %d", name, n, want)
								}
							}
							return nil
						}),
					},
					ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				},
				{
					// In CMDB: nginx goes to three instances a host, and its start command changes.
					PreConfig: func() {
						if err := e.Sim.CMDB().EditProcessTemplate(1, map[string]any{"proc_num": 3, "start_cmd": "./nginx -g 'daemon off;' -p ${local_inst_id + 8079}"}); err != nil {
							t.Fatal(err)
						}
					},
					Config: processesConfig(e, ""),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/nginx_3"), plancheck.ResourceActionCreate),
						plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/nginx_1"), plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/nginx_2"), plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/agent_1"), plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/agent_1/tpl2-mod1002"), plancheck.ResourceActionNoop),
					}},
					ConfigStateChecks: []statecheck.StateCheck{acctest.SimState(func() error {
						if n := running(e, "nginx_3"); n != hosts {
							return fmt.Errorf("nginx_3 runs on %d hosts, want %d", n, hosts)
						}
						return nil
					})},
				},
				{
					// Back to one instance a host: exactly nginx_2 and nginx_3 go.
					PreConfig: func() {
						if err := e.Sim.CMDB().EditProcessTemplate(1, map[string]any{"proc_num": 1}); err != nil {
							t.Fatal(err)
						}
					},
					Config: processesConfig(e, ""),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/nginx_1"), plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/nginx_2"), plancheck.ResourceActionDestroy),
						plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/nginx_3"), plancheck.ResourceActionDestroy),
					}},
				},
				{
					// Only the agent alias: nginx's groups are destroyed, both agent groups stay as they are.
					Config: processesConfig(e, `process_names = ["agent"]`),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/agent_1"), plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/agent_1/tpl2-mod1002"), plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/nginx_1"), plancheck.ResourceActionDestroy),
					}},
					ConfigStateChecks: []statecheck.StateCheck{acctest.SimState(func() error {
						if n, a := running(e, "nginx_1"), running(e, "agent_1"); n != 0 || a != hosts {
							return fmt.Errorf("nginx_1 on %d hosts, agent_1 on %d; want 0 and %d", n, a, hosts)
						}
						return nil
					})},
				},
				{
					// The test framework cannot destroy for_each instances itself: a configuration without them does.
					Config:            e.CMDBConfig(""),
					ConfigStateChecks: []statecheck.StateCheck{acctest.SimState(func() error { return e.CheckSimEmpty(nil) })},
				},
			},
		})
	})
}

// TestAccCMDBProcesses_adopt: processes GSEKit already runs (GSEKIT_BIZ_2,
// its names) are imported with the configuration built from
// gse_cmdb_processes: the apply imports them and sends CMDB's spec in
// place, and the plan after it is empty.
func TestAccCMDBProcesses_adopt(t *testing.T) {
	inCMDBModes(t, 100, func(t *testing.T, e *acctest.Env) {
		var running []string
		for _, h := range e.Sim.CMDB().Hosts() {
			ip, _, _ := strings.Cut(h.InnerIP, ",")
			switch {
			case e.Gateway && h.AgentID != "":
				running = append(running, "agent:"+h.AgentID)
			case ip != "":
				running = append(running, "0:"+ip)
			case e.Gateway && h.InnerIPv6 != "":
				running = append(running, "0:"+netip.MustParseAddr(h.InnerIPv6).String())
			}
		}
		for _, name := range []string{"nginx_1", "nginx_2", "agent_1"} {
			e.Register(t, gse.Meta{Namespace: "GSEKIT_BIZ_2", Name: name}, running, acctest.OpPtr(gse.OpStart))
		}
		adopt := processesConfig(e, "") + `
import {
  for_each = data.gse_cmdb_processes.biz.groups
  to       = gse_managed_process.p[each.key]
  id       = "${each.value.meta.namespace}/${each.value.meta.name}@${join(",", [for h in each.value.hosts : h.agent_id != null ? "agent_id=${h.agent_id}" : "${h.bk_cloud_id}:0:${h.ip}"])}"
}
`
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{
				{
					Config: adopt,
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/nginx_1"), plancheck.ResourceActionUpdate),
							plancheck.ExpectResourceAction(groupAddr("GSEKIT_BIZ_2/agent_1"), plancheck.ResourceActionUpdate),
						},
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					ConfigStateChecks: []statecheck.StateCheck{acctest.SimState(func() error {
						for _, p := range e.Sim.GSE().Processes() {
							if p.Restarts != 0 || !p.Running {
								return fmt.Errorf("%s on %s: running %v, restarts %d: adoption must not restart", p.Name, p.IP, p.Running, p.Restarts)
							}
						}
						return nil
					})},
				},
				{Config: e.CMDBConfig(""), ConfigStateChecks: []statecheck.StateCheck{acctest.SimState(func() error { return e.CheckSimEmpty(nil) })}},
			},
		})
	})
}

// TestAccCMDBProcesses_permission: list_process_related_info is hidden and
// granted to no app by default, nor offered for apps to apply for; the
// refusal fails the plan naming the API, who can grant it, and the other door.
func TestAccCMDBProcesses_permission(t *testing.T) {
	inCMDBModes(t, 100, func(t *testing.T, e *acctest.Env) {
		code, want := 1306403, "only the ESB's administrators can grant it. Ask them to grant it to the app in app_code; or, where the bk-cmdb gateway has granted the app list_process_related_info, set cmdb_gateway_url"
		if e.Gateway {
			code, want = 1640301, "list_process_related_info is not public on the bk-cmdb gateway: the developer center does not offer it, and only the gateway's maintainers can grant it. Ask the bk-cmdb administrators"
		}
		e.Sim.AddFault(simulator.Fault{API: "cc/list_process_related_info", Code: code, Times: simulator.Forever})
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{{
				Config:      e.CMDBConfig("data \"gse_cmdb_processes\" \"biz\" { bk_biz_id = 2 }\n"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Could not list the processes of business 2.*list_process_related_info:.*code ` + fmt.Sprint(code) + `.*` + acctest.WrappedText(want)),
			}},
		})
	})
}
