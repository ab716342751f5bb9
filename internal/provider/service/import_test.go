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

// A service of two namespaces imported by them (in any order) reads back
// what it holds but for
// what GSE cannot say (the processes' spec, each instance's CMDB priority,
// a bk_supplier_id the configuration leaves unset);
// a namespace GSE has nothing in, or an ID that is not one, is refused.
func TestAccService_importByNamespace(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := e.ProviderBlock() + fmt.Sprintf(`
resource "gse_service" "test" {
  processes = {%s%s
  }
}
`, groupsHCL("svc", []svcGroup{{"web", 10, []int{1, 2}}, {"app", 5, []int{1}}}), groupsHCL("ops", []svcGroup{{"agent", 1, []int{2}}}))
		ignore := []string{"processes", "revision", "canary_revision"}
		for _, k := range []string{"svc/web@0:10.0.0.1", "svc/web@0:10.0.0.2", "svc/app@0:10.0.0.1", "ops/agent@0:10.0.0.2"} {
			ignore = append(ignore, "instances."+k+".priority", "instances."+k+".host.bk_supplier_id")
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: cfg},
				{RefreshState: true}, // the release's tiers and batches done
				{Config: cfg, ResourceName: addr, ImportState: true, ImportStateId: "svc,ops", ImportStateVerify: true, ImportStateVerifyIgnore: ignore},
				{Config: cfg, ResourceName: addr, ImportState: true, ImportStateId: "nothing", ExpectError: regexp.MustCompile(`No process in namespace nothing`)},
				{Config: cfg, ResourceName: addr, ImportState: true, ImportStateId: "svc,a/b", ExpectError: regexp.MustCompile(`Invalid import ID for gse_service`)},
				{Config: cfg, ResourceName: addr, ImportState: true, ImportStateId: "svc,svc", ExpectError: regexp.MustCompile(`namespace "svc" is listed twice`)},
			},
		})
	})
}

// Processes GSEKit started in its namespace, with its labels
// (bk_process_id differing from host to host), imported into a
// gse_service with restart_triggers: the first apply sends the spec alone
// (no start, stop or restart: the same pids), each host keeps its labels whether GSE drops
// the labels an update leaves out or keeps them, and the plan after it is
// empty; a spec change later keeps them too. A process of the namespace
// that processes does not hold is left running, out of the service, with a
// warning.
func TestAccService_adoptGSEKit(t *testing.T) {
	t.Parallel()
	for _, on := range []simulator.LabelsOnUpdate{simulator.LabelsReplaced, simulator.LabelsKept} {
		t.Run(string(on), func(t *testing.T) {
			t.Parallel()
			acctest.InModesWith(t, func(o *simulator.Options) { o.UpdateLabels = on }, func(t *testing.T, e *acctest.Env) {
				const ns = "GSEKIT_BIZ_2"
				labels := func(id int) map[string]string {
					return map[string]string{"bk_process_name": "nginx", "bk_process_id": fmt.Sprint(id)}
				}
				for i, ip := range []string{"0:10.0.0.1", "0:10.0.0.2"} {
					e.Register(t, gse.Meta{Namespace: ns, Name: "nginx_1", Labels: labels(41 + i)}, []string{ip}, acctest.OpPtr(gse.OpStart))
				}
				e.Register(t, gse.Meta{Namespace: ns, Name: "legacy"}, []string{"0:10.0.0.3"}, acctest.OpPtr(gse.OpStart))
				cfg := e.ProviderBlock() + fmt.Sprintf(`
resource "gse_service" "test" {
  processes = {%s
  }
  restart_triggers = { release = "1" }
}
`, groupsHCL(ns, []svcGroup{{"nginx_1", 1, []int{1, 2}}}))
				edited := acctest.Edited(t, cfg, `setup_path = "/data/nginx_1"`, `setup_path = "/data/nginx"`)
				pids := map[string]int64{}
				var mark int
				kept := resource.ComposeAggregateTestCheckFunc(
					e.SimCheckOf(ns, "nginx_1", "10.0.0.1", acctest.HasLabels(labels(41))),
					e.SimCheckOf(ns, "nginx_1", "10.0.0.2", acctest.HasLabels(labels(42))),
				)
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: e.Factories(),
					CheckDestroy:             e.CheckOnlyLeft(ns + "/legacy"),
					Steps: []resource.TestStep{
						{
							PreConfig: func() { _ = recordPIDs(e.Sim, pids)(nil) },
							Config:    cfg, ResourceName: addr, ImportState: true, ImportStateId: ns, ImportStatePersist: true,
						},
						{
							PreConfig: acctest.MarkTasks(e.Sim, &mark),
							Config:    cfg,
							ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
								plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
								plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListExact([]knownvalue.Check{
									tierCheck(1, "ascending", 1, [][]string{{ns + "/nginx_1@0:10.0.0.1", ns + "/nginx_1@0:10.0.0.2"}}),
								})),
								plancheck.ExpectKnownValue(addr, tfjsonpath.New("instances").AtMapKey(ns+"/nginx_1@0:10.0.0.1").AtMapKey("action"), knownvalue.StringExact("update")),
							}},
							Check: resource.ComposeAggregateTestCheckFunc(
								noDisruption(e.Sim, &mark),
								func(*terraform.State) error {
									return samePIDs(e.Sim, pids, []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"})
								},
								e.SimCheckOf(ns, "nginx_1", "10.0.0.1", acctest.Restarts(0)),
								e.SimCheckOf(ns, "legacy", "10.0.0.3", acctest.Restarts(0)),
								kept,
							),
						},
						{Config: cfg, PlanOnly: true},
						{Config: edited, Check: resource.ComposeAggregateTestCheckFunc(kept, e.SimCheckOf(ns, "nginx_1", "10.0.0.2", acctest.Restarts(0)))},
					},
				})
			})
		})
	}
}

// noDisruption checks that no operate task since mark started, stopped or
// restarted a process (op_type 0, 1 or 7).
func noDisruption(sim *simulator.Server, mark *int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, op := range []gse.OpType{gse.OpStart, gse.OpStop, gse.OpRestart} {
			if got := taskProcesses(sim, *mark, int(op)); len(got) > 0 {
				return fmt.Errorf("op_type %d tasks for %v, want none", op, got)
			}
		}
		return nil
	}
}

// A for_each of gse_managed_process over the groups, applied, then replaced
// by one gse_service over the same groups (removed with destroy = false,
// and an import block by namespace): the apply adopts every process with no
// start, stop or restart (the same pids), and the plan after it is empty.
func TestAccService_migrateFromManagedProcess(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		groups := groupsHCL("svc", []svcGroup{{"web", 10, []int{1, 2}}, {"app", 5, []int{1, 3}}})
		before := e.ProviderBlock() + fmt.Sprintf(`
locals {
  groups = {%s
  }
}

resource "gse_managed_process" "each" {
  for_each = local.groups

  meta    = each.value.meta
  spec    = each.value.spec
  hosts   = each.value.hosts
  running = true
}
`, groups)
		after := e.ProviderBlock() + fmt.Sprintf(`
locals {
  groups = {%s
  }
}

removed {
  from = gse_managed_process.each
  lifecycle {
    destroy = false
  }
}

import {
  to = gse_service.test
  id = "svc"
}

resource "gse_service" "test" {
  processes = local.groups
}
`, groups)
		pids := map[string]int64{}
		var mark int
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: before, ConfigStateChecks: []statecheck.StateCheck{onSim(recordPIDs(e.Sim, pids))}},
				{
					PreConfig: acctest.MarkTasks(e.Sim, &mark),
					Config:    after,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListExact([]knownvalue.Check{
							tierCheck(1, "ascending", 5, [][]string{{"svc/app@0:10.0.0.1", "svc/app@0:10.0.0.3"}}),
							tierCheck(2, "ascending", 10, [][]string{{"svc/web@0:10.0.0.1", "svc/web@0:10.0.0.2"}}),
						})),
					}},
					ConfigStateChecks: []statecheck.StateCheck{onSim(resource.ComposeAggregateTestCheckFunc(
						noDisruption(e.Sim, &mark),
						func(*terraform.State) error {
							return samePIDs(e.Sim, pids, []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"})
						},
						e.SimCheckOf("svc", "web", "10.0.0.2", acctest.Restarts(0)),
						e.SimCheckOf("svc", "app", "10.0.0.3", acctest.Restarts(0)),
					))},
				},
				{Config: after, PlanOnly: true},
			},
		})
	})
}

// onSim is a check of the simulator alone as a state check, for
// configurations with for_each (acctest.SimState).
func onSim(check resource.TestCheckFunc) statecheck.StateCheck {
	return acctest.SimState(func() error { return check(nil) })
}

// An imported instance GSE reports stopped, under running unset (true), is
// started by the adoption's apply (the spec sent with the start), and only
// it: the running one gets the spec alone and keeps its pid, and the plan
// after the apply is empty.
func TestAccService_adoptStopped(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		meta := gse.Meta{Namespace: "svc", Name: "web"}
		e.Register(t, meta, []string{"0:10.0.0.1", "0:10.0.0.2"}, acctest.OpPtr(gse.OpStart))
		if err := e.Sim.GSE().Drift(simulator.DriftStop, "svc", "web", 0, "10.0.0.2"); err != nil {
			t.Fatal(err)
		}
		cfg := serviceConfig(e, []svcGroup{{"web", 1, []int{1, 2}}}, "")
		action := func(ip string) tfjsonpath.Path {
			return tfjsonpath.New("instances").AtMapKey("svc/web@0:" + ip).AtMapKey("action")
		}
		var mark int
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: cfg, ResourceName: addr, ImportState: true, ImportStateId: "svc", ImportStatePersist: true},
				{
					PreConfig: acctest.MarkTasks(e.Sim, &mark),
					Config:    cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, action("10.0.0.1"), knownvalue.StringExact("update")),
						plancheck.ExpectKnownValue(addr, action("10.0.0.2"), knownvalue.StringExact("start")),
					}},
					Check: resource.ComposeAggregateTestCheckFunc(
						e.SimCheckOf("svc", "web", "10.0.0.1", acctest.Restarts(0)),
						e.SimCheckOf("svc", "web", "10.0.0.2", acctest.HostedAndRunning),
						expectTaskOrder(e.Sim, &mark, int(gse.OpRestart)),
					),
				},
			},
		})
	})
}

// A service imported and destroyed without an apply in between stops and
// unregisters its processes through ESB (operate_proc acts on the spec GSE
// holds); through the gateway, which stops a process only with its spec,
// the destroy is refused before anything is sent, and succeeds after an
// apply.
func TestAccService_importThenDestroy(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		e.Register(t, gse.Meta{Namespace: "svc", Name: "web"}, []string{"0:10.0.0.1", "0:10.0.0.2"}, acctest.OpPtr(gse.OpStart))
		cfg := serviceConfig(e, []svcGroup{{"web", 1, []int{1, 2}}}, "")
		steps := []resource.TestStep{{Config: cfg, ResourceName: addr, ImportState: true, ImportStateId: "svc", ImportStatePersist: true}}
		if e.Gateway {
			steps = append(steps,
				resource.TestStep{Config: cfg, Destroy: true, ExpectError: regexp.MustCompile(`Cannot destroy a service imported and never applied`),
					Check: e.SimCheckOf("svc", "web", "10.0.0.1", acctest.Restarts(0))},
				resource.TestStep{Config: cfg})
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps:                    steps,
		})
	})
}
