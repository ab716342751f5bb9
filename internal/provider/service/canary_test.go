package service_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// canaryHosts is the business of the canary tests: nginx, two instances a
// host, on the Linux hosts of the simulator's first 23 (every 7th runs
// Windows, where the shell health script cannot run): 20 hosts.
const canaryHosts = 23

// nginxCheck is the health script of the canary tests: it checks the config
// it finds, as `nginx -t` does; the simulator fails it on a bad content.
const nginxCheck = "nginx -t -p /data/nginx"

// canaryService is nginx of the simulator's business 2 on its Linux hosts as
// a gse_service with a file per instance and a reload_cmd of revision rev,
// a health gate running nginxCheck, and rollout's arguments (batch_size
// "50%" unless given).
func canaryService(e *acctest.Env, rev, rollout, extra string) string {
	if !strings.Contains(rollout, "batch_size") {
		rollout = `batch_size = "50%", ` + rollout
	}
	return e.CMDBConfig(fmt.Sprintf(`
data "gse_cmdb_processes" "biz" {
  bk_biz_id      = 2
  process_names  = ["nginx"]
  with_instances = true
  namespace      = "hc"
}

resource "gse_service" "test" {
  bk_biz_id = 2
  processes = {
    for k, g in data.gse_cmdb_processes.biz.groups : k => merge(g, {
      hosts = [for h in g.hosts : h if h.bk_host_id %% 7 != 0]
      spec  = merge(g.spec, { control = merge(g.spec.control, { reload_cmd = "./reload.sh # rev %[3]s" }) })
    })
  }
  rollout = { %[1]s }
  health  = { healthy_deadline = "3s", script = { content = %[2]q } }
  config_files = {
    for k, i in data.gse_cmdb_processes.biz.instances : k => {
      instance  = k
      path      = "/data/nginx/conf"
      file_name = "${i.name}.conf"
      content   = "listen ${8079 + i.local_inst_id};\n# rev %[3]s\n"
    } if i.bk_host_id %% 7 != 0
  }
  %[4]s
}
`, rollout, nginxCheck, rev, extra))
}

// linuxHosts are the bk_host_ids of the canary tests' hosts from..to.
func linuxHosts(from, to int) []int {
	var out []int
	for h := from; h <= to; h++ {
		if h%7 != 0 {
			out = append(out, h)
		}
	}
	return out
}

// firstHostKeys are nginx's instance keys on 10.0.0.1, the host batches
// take first.
var firstHostKeys = []knownvalue.Check{knownvalue.StringExact("hc/nginx_1@0:10.0.0.1"), knownvalue.StringExact("hc/nginx_2@0:10.0.0.1")}

// canaryFirst checks that the plan's schedule starts with the canary's
// tier, holding nginx on the first host alone.
func canaryFirst() plancheck.PlanCheck {
	return plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule").AtSliceIndex(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
		"canary":  knownvalue.Bool(true),
		"batches": knownvalue.ListExact([]knownvalue.Check{knownvalue.ListExact(firstHostKeys)}),
	}))
}

// recordReloads notes how many times each nginx instance was reloaded, by
// instance and address.
func recordReloads(sim *simulator.Server, reloads map[string]int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, p := range sim.GSE().Processes() {
			reloads[p.Name+"@"+p.IP] = p.Reloads
		}
		return nil
	}
}

// reloadedOnly checks that since recordReloads only the addresses of want
// had their nginx instances reloaded, each as many times as want says.
func reloadedOnly(sim *simulator.Server, reloads map[string]int, want map[string]int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, p := range sim.GSE().Processes() {
			if n := p.Reloads - reloads[p.Name+"@"+p.IP]; n != want[p.IP] {
				return fmt.Errorf("%s on %s reloaded %d times, want %d", p.Name, p.IP, n, want[p.IP])
			}
		}
		return nil
	}
}

// specsAre checks that every nginx instance holds the reload_cmd of revision rev.
func specsAre(sim *simulator.Server, rev string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, p := range sim.GSE().Processes() {
			if !strings.Contains(string(p.Spec), "./reload.sh # "+rev) {
				return fmt.Errorf("%s on %s holds spec %s, want the reload_cmd of %s", p.Name, p.IP, p.Spec, rev)
			}
		}
		return nil
	}
}

// filesAre checks nginx_1.conf on the Linux hosts from..to holds revision rev.
func filesAre(sim *simulator.Server, from, to int, rev string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, h := range linuxHosts(from, to) {
			if err := fileOn(sim, int64(h), "/data/nginx/conf/nginx_1.conf", "listen 8080;\n# rev "+rev+"\n")(nil); err != nil {
				return err
			}
		}
		return nil
	}
}

// ips are the addresses of the Linux hosts from..to.
func ips(from, to int) []string {
	var out []string
	for _, h := range linuxHosts(from, to) {
		out = append(out, fmt.Sprintf("10.0.0.%d", h))
	}
	return out
}

// A release whose new content fails the health script on its canary stops
// there: only the first host got the file and a reload, the automatic
// revert restored its file and its spec (and reloaded it), the apply fails,
// the service is updated in place next (not tainted), and the other hosts
// keep their file, their spec and their pids, never reloaded. With a good
// content, the canary passes, bakes ten minutes by GSE's clock (which the
// simulator runs ten minutes a second: an apply that counted its own would
// pass its one-minute timeout), and the release goes on by itself to every
// host.
func TestAccService_canary(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts, o.ClockRate = canaryHosts, 600 }, func(t *testing.T, e *acctest.Env) {
		canary := `canary = { size = 1, bake = "10m" }, auto_revert = true`
		pids, reloads := map[string]int64{}, map[string]int{}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: canaryService(e, "1", canary, ""), Check: resource.ComposeAggregateTestCheckFunc(filesAre(e.Sim, 1, canaryHosts, "1"), recordPIDs(e.Sim, pids), recordReloads(e.Sim, reloads))},
				{
					PreConfig: func() {
						e.Sim.JOBv3().SetScriptFailsOnContent(nginxCheck, "# rev bad", 1, "nginx: [emerg] unexpected end of file\n")
					},
					Config:           canaryService(e, "bad", canary, ""),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{canaryFirst()}},
					ExpectError:      regexp.MustCompile(`(?s)not run: the canary failed.*nginx: \[emerg\]`),
				},
				{
					RefreshState:       true,
					ExpectNonEmptyPlan: true,
					Check: resource.ComposeAggregateTestCheckFunc(
						filesAre(e.Sim, 1, canaryHosts, "1"),
						specsAre(e.Sim, "rev 1"),
						reloadedOnly(e.Sim, reloads, map[string]int{"10.0.0.1": 2}),
						func(*terraform.State) error { return samePIDs(e.Sim, pids, ips(2, canaryHosts)) },
						resource.TestCheckResourceAttr(addr, "failed_count", "2"),
						resource.TestCheckResourceAttr(addr, "pending_count", fmt.Sprint(2*(len(linuxHosts(1, canaryHosts))-1))),
						resource.TestMatchResourceAttr(addr, "instances.hc/nginx_1@0:10.0.0.1.message",
							regexp.MustCompile(`nginx: \[emerg\].*; then rollout.auto_revert restored its previous files and spec$`)),
						func(*terraform.State) error {
							if _, ok := e.Sim.JOBv3().File(1, "/data/nginx/conf/nginx_1.conf.gse-prev"); ok {
								return fmt.Errorf("the restore left its backup on host 1")
							}
							return nil
						},
					),
				},
				{
					PreConfig: func() { e.Sim.JOBv3().SetScriptFailsOnContent(nginxCheck, "", 0, "") },
					Config:    canaryService(e, "2", canary, `timeouts = { update = "1m" }`),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate), canaryFirst(),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("canary_revision")),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.CompareValuePairs(addr, tfjsonpath.New("canary_revision"), addr, tfjsonpath.New("revision"), compare.ValuesSame()),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_count"), knownvalue.Int64Exact(0)),
					},
					Check: filesAre(e.Sim, 1, canaryHosts, "2"),
				},
				{Config: canaryService(e, "2", canary, `timeouts = { update = "1m" }`), PlanOnly: true},
			},
		})
	})
}

// With promote = "manual" the apply stops after the canary, the rest
// pending, and the plans after it are empty but for a warning naming the
// step; promote_revision set to the revision releases the rest.
func TestAccService_canaryManualPromotion(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts = canaryHosts }, func(t *testing.T, e *acctest.Env) {
		canary := `canary = { size = 1, promote = "manual" }`
		promote := filepath.Join(t.TempDir(), "promote")
		promoted := fmt.Sprintf("promote_revision = trimspace(file(%q))", promote)
		var pushes int
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: canaryService(e, "1", canary, "")},
				{
					Config: canaryService(e, "2", canary, ""),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						canaryFirst(),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListSizeExact(1)),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("instances").AtMapKey("hc/nginx_1@0:10.0.0.3").AtMapKey("message"),
							knownvalue.StringRegexp(regexp.MustCompile(`^awaiting promotion: once the canary passed, set promote_revision = "[0-9a-f]+"$`))),
					}},
					Check: resource.ComposeAggregateTestCheckFunc(
						fileOn(e.Sim, 1, "/data/nginx/conf/nginx_1.conf", "listen 8080;\n# rev 2\n"),
						filesAre(e.Sim, 2, canaryHosts, "1"),
						resource.TestCheckResourceAttr(addr, "pending_count", fmt.Sprint(2*(len(linuxHosts(1, canaryHosts))-1))),
						func(s *terraform.State) error {
							pushes = e.Sim.Calls("jobv3/push_config_file")
							rs := s.RootModule().Resources[addr].Primary.Attributes
							if rs["canary_revision"] != rs["revision"] {
								return fmt.Errorf("canary_revision %q, want the revision %q", rs["canary_revision"], rs["revision"])
							}
							return os.WriteFile(promote, []byte(rs["revision"]), 0o600)
						},
					),
				},
				{Config: canaryService(e, "2", canary, ""), PlanOnly: true},
				{
					Config: canaryService(e, "2", canary, promoted),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule").AtSliceIndex(0).AtMapKey("canary"), knownvalue.Bool(false)),
					}},
					Check: resource.ComposeAggregateTestCheckFunc(
						filesAre(e.Sim, 1, canaryHosts, "2"),
						resource.TestCheckResourceAttr(addr, "pending_count", "0"),
						func(*terraform.State) error {
							// nginx_1.conf and nginx_2.conf are alike on every
							// host: one push each per batch of the rest.
							if n := e.Sim.Calls("jobv3/push_config_file") - pushes; n != 4 {
								return fmt.Errorf("the promotion pushed %d times, want 4: each file once in each of the rest's 2 batches", n)
							}
							return nil
						},
					),
				},
				{Config: canaryService(e, "2", canary, promoted), PlanOnly: true},
			},
		})
	})
}

// rollout.paused holds a release: the plan shows its instances pending,
// the apply pushes nothing, the next plan is empty; unpaused, it runs.
// progress_deadline stops a release at the first batch boundary past it.
func TestAccService_pausedAndDeadline(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts = 4 }, func(t *testing.T, e *acctest.Env) {
		var pushes int
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: canaryService(e, "1", "paused = false", "")},
				{
					PreConfig: func() { pushes = e.Sim.Calls("jobv3/push_config_file") },
					Config:    canaryService(e, "2", "paused = true", ""),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("instances").AtMapKey("hc/nginx_1@0:10.0.0.1").AtMapKey("message"), knownvalue.StringExact("held: rollout.paused is true")),
					}},
					Check: resource.ComposeAggregateTestCheckFunc(
						filesAre(e.Sim, 1, 4, "1"),
						resource.TestCheckResourceAttr(addr, "pending_count", "8"),
						func(*terraform.State) error {
							if n := e.Sim.Calls("jobv3/push_config_file") - pushes; n != 0 {
								return fmt.Errorf("a paused release pushed %d times", n)
							}
							return nil
						},
					),
				},
				{Config: canaryService(e, "2", "paused = true", ""), PlanOnly: true},
				{Config: canaryService(e, "2", "paused = false", ""), Check: filesAre(e.Sim, 1, 4, "2")},
				{
					Config:      canaryService(e, "3", `batch_size = 1, pause = "2s", progress_deadline = "1s"`, ""),
					ExpectError: regexp.MustCompile(`rollout.progress_deadline \(1s\)`),
				},
				{RefreshState: true, ExpectNonEmptyPlan: true, Check: resource.ComposeAggregateTestCheckFunc(
					fileOn(e.Sim, 1, "/data/nginx/conf/nginx_1.conf", "listen 8080;\n# rev 3\n"),
					resource.TestCheckResourceAttr(addr, "pending_count", "6"),
				)},
			},
		})
	})
}

// select takes the canary from the sets of a CMDB attribute: the test sets
// (bk_set_env "1", as gse_cmdb_processes' instances give it), so that the
// canary is the first host of set 102, not the first host of all; a select
// that matches no host of the release fails the plan.
func TestAccService_canarySelect(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts, o.CMDBHostsPerModule = 8, 2 }, func(t *testing.T, e *acctest.Env) {
		// Sets 101 (hosts 1-4) and 102 (hosts 5-8); the business's odd sets are test sets.
		canary := func(field, env string) string {
			return `canary = { size = 1, promote = "manual", select = { set_property_filter = { condition = "AND", rules = [{ field = "` + field + `", operator = "equal", value = "` + env + `" }] } } }`
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: canaryService(e, "1", canary("bk_set_env", "1"), "")},
				{
					Config: canaryService(e, "2", canary("bk_set_env", "1"), ""),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule").AtSliceIndex(0).AtMapKey("batches"), knownvalue.ListExact([]knownvalue.Check{
							knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("hc/nginx_1@0:10.0.0.5"), knownvalue.StringExact("hc/nginx_2@0:10.0.0.5")}),
						})),
					}},
					Check: resource.ComposeAggregateTestCheckFunc(
						fileOn(e.Sim, 5, "/data/nginx/conf/nginx_1.conf", "listen 8080;\n# rev 2\n"),
						filesAre(e.Sim, 1, 4, "1"),
						filesAre(e.Sim, 6, 8, "1"),
						func(*terraform.State) error {
							if e.Sim.Calls("cc/list_biz_hosts_topo") == 0 {
								return errors.New("the canary was picked without reading CMDB's sets")
							}
							return nil
						},
					),
				},
				{
					Config:      canaryService(e, "3", canary("bk_set_env", "2"), ""),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`The canary's select matches no host of the release`),
				},
				{
					Config:      canaryService(e, "3", canary("bk_set_evn", "1"), ""),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`(?s)Unknown set field in rollout.canary.select.set_property_filter.*"bk_set_evn" is not a field of CMDB sets in business 2 \(did you mean\s+"bk_set_env"\?\)`),
				},
			},
		})
	})
}

// A canary whose process dies during its bake (the simulator's agent
// restarts it three hours, by its clock, after the release's reload, with
// the bake six hours and the clock at 600×) fails the release: the bake
// names the pid it lost, the revert restores the canary's file, and the
// other hosts are not touched.
func TestAccService_canaryBakeFails(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts, o.ClockRate = 4, 600 }, func(t *testing.T, e *acctest.Env) {
		canary := `canary = { size = 1, bake = "6h" }, auto_revert = true`
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: canaryService(e, "1", canary, "")},
				{
					PreConfig:   func() { e.Sim.SetDiesAfterOperation("hc", "nginx_1", 0, "10.0.0.1", 3*time.Hour) },
					Config:      canaryService(e, "2", canary, `timeouts = { update = "2m" }`),
					ExpectError: regexp.MustCompile(`(?s)did not stay healthy for rollout.canary.bake.*during rollout.canary.bake \(6h0m0s\) GSE reported status running \(1\), pid \d+, not pid \d+ running`),
				},
				{
					RefreshState:       true,
					ExpectNonEmptyPlan: true,
					Check: resource.ComposeAggregateTestCheckFunc(
						filesAre(e.Sim, 1, 4, "1"),
						resource.TestCheckResourceAttr(addr, "failed_count", "1"),
						resource.TestMatchResourceAttr(addr, "instances.hc/nginx_1@0:10.0.0.1.message", regexp.MustCompile(`; then rollout.auto_revert restored its previous files and spec$`)),
					),
				},
			},
		})
	})
}
