package service_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// verifiedFiles are nginxFiles("1") with verify on.
func verifiedFiles() string {
	return strings.Replace(nginxFiles("1"), "content   =", "verify    = true\n      content   =", 1)
}

// A file edited by hand on host 3, then one deleted there, is read back by
// the refresh: the plan pushes it to that one instance and reloads it alone
// (its host's other instance and every other host untouched), the apply
// writes it back, and the next plan is empty.
func TestAccService_verifyRepairs(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts = 4 }, func(t *testing.T, e *acctest.Env) {
		cfg := cmdbService(e, verifiedFiles())
		const key3, full = "hc/nginx_2@0:10.0.0.3", "/data/nginx/conf/nginx_2.conf"
		want := "listen 8081;\n# rev 1\n"
		var mark int
		repair := func(content []byte) resource.TestStep {
			return resource.TestStep{
				PreConfig: func() { e.Sim.JOBv3().SetFile(3, full, content); acctest.MarkTasks(e.Sim, &mark)() },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("instances").AtMapKey(key3).AtMapKey("action"), knownvalue.StringExact("reload")),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListExact([]knownvalue.Check{
						tierCheck(1, "ascending", 10, [][]string{{key3}}),
					})),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					fileOn(e.Sim, 3, full, want),
					fileOn(e.Sim, 3, "/data/nginx/conf/nginx_1.conf", "listen 8080;\n# rev 1\n"),
					onlyOp(e.Sim, &mark, int(gse.OpReload), "hc/nginx_2", "10.0.0.3"),
				),
			}
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: cfg, Check: fileOn(e.Sim, 3, full, want)},
				{Config: cfg, PlanOnly: true},
				repair([]byte("listen 9999;\n")),
				{Config: cfg, PlanOnly: true},
				repair(nil),
				{Config: cfg, PlanOnly: true},
			},
		})
	})
}

// Files without verify are never read: a file edited by hand stays as it
// is, the plan is empty, and no refresh runs fast_execute_script; once the
// state has verify on, each refresh reads each of the two paths once.
func TestAccService_verifyOffReadsNothing(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts = 4 }, func(t *testing.T, e *acctest.Env) {
		const full = "/data/nginx/conf/nginx_2.conf"
		var reads int
		mark := func() { reads = e.Sim.Calls("jobv3/fast_execute_script") }
		readsSince := func(ok func(int) bool, what string) resource.TestCheckFunc {
			return func(*terraform.State) error {
				if n := e.Sim.Calls("jobv3/fast_execute_script") - reads; !ok(n) {
					return fmt.Errorf("fast_execute_script called %d times since the step began, want %s", n, what)
				}
				return nil
			}
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{PreConfig: mark, Config: cmdbService(e, nginxFiles("1")), Check: readsSince(func(n int) bool { return n == 0 }, "none")},
				{
					PreConfig: func() { e.Sim.JOBv3().SetFile(3, full, []byte("edited\n")); mark() },
					Config:    cmdbService(e, nginxFiles("1")),
					PlanOnly:  true,
				},
				{
					PreConfig: mark,
					Config:    cmdbService(e, nginxFiles("1")),
					Check: resource.ComposeAggregateTestCheckFunc(
						readsSince(func(n int) bool { return n == 0 }, "none"),
						fileOn(e.Sim, 3, full, "edited\n"),
					),
				},
				{
					PreConfig: func() { e.Sim.JOBv3().SetFile(3, full, []byte("listen 8081;\n# rev 1\n")) },
					Config:    cmdbService(e, verifiedFiles()),
				},
				{
					PreConfig: mark,
					Config:    cmdbService(e, verifiedFiles()),
					Check:     readsSince(func(n int) bool { return n > 0 && n%2 == 0 }, "two a refresh (one a path)"),
				},
			},
		})
	})
}

// onlyOp checks that the op tasks since mark carried op for process on the
// host ip alone.
func onlyOp(sim *simulator.Server, mark *int, op int, process, ip string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var got []string
		for _, task := range sim.Tasks()[*mark:] {
			for _, tg := range task.Targets {
				if tg.Op == op {
					got = append(got, tg.Process+"@"+tg.IP)
				}
			}
		}
		if len(got) != 1 || got[0] != process+"@"+ip {
			return fmt.Errorf("op_type %d went to %v, want %s@%s alone", op, got, process, ip)
		}
		return nil
	}
}

// A read that fails on host 3 (no sha256sum there) fails the refresh,
// naming the host, what it printed and what to do; with the tool back the
// plan is empty. A file edited on a host JOB cannot reach is not drift
// until JOB reaches it.
func TestAccService_verifyUnread(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts = 4 }, func(t *testing.T, e *acctest.Env) {
		cfg := cmdbService(e, verifiedFiles())
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: cfg},
				{
					PreConfig: func() { e.Sim.JOBv3().SetCommandMissing(3, "sha256sum", true) },
					Config:    cfg,
					PlanOnly:  true,
					ExpectError: acctest.Wrapped(`Could not read config_files["hc/nginx_`, "and 3 more of /data/nginx/conf/nginx_", "on their hosts",
						"fast_execute_script could not read /data/nginx/conf/nginx_", ".conf on 1 of 4 hosts:",
						`10.0.0.3`, `exit code 127 (JOB host status 104), output "sh: 3: sha256sum: not found"`,
						`The read runs sha256sum as the JOB account "root"`, "set verify = false"),
				},
				{
					PreConfig: func() { e.Sim.JOBv3().SetCommandMissing(3, "sha256sum", false) },
					Config:    cfg,
					PlanOnly:  true,
				},
				{
					PreConfig: func() {
						e.Sim.JOBv3().SetFile(3, "/data/nginx/conf/nginx_2.conf", []byte("edited\n"))
						e.Sim.JOBv3().SetAgentDown(3, true)
					},
					Config:   cfg,
					PlanOnly: true,
				},
				{
					PreConfig:          func() { e.Sim.JOBv3().SetAgentDown(3, false) },
					Config:             cfg,
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
				},
			},
		})
	})
}
