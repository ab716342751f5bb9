package configfile_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// twoHosts are hosts 1 and 3 by IP, keyed so in host_status.
const twoHosts = `[{ ip = "10.0.0.1", bk_cloud_id = 0 }, { ip = "10.0.0.3", bk_cloud_id = 0 }]`

// A host whose read fails (no sha256sum) fails the refresh naming it, the
// exit code and what it printed; it is never read as a changed file to push
// at every apply. Once the host has the tool, the plan is empty again.
func TestAccConfigFile_readFails(t *testing.T) {
	inFileModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := fileConfig(e, twoHosts, "worker_processes 2;\n", "verify = true")
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{
				{Config: cfg},
				{
					PreConfig: func() { e.Sim.JOBv3().SetCommandMissing(3, "sha256sum", true) },
					Config:    cfg,
					PlanOnly:  true,
					ExpectError: acctest.Wrapped("Could not read biz:2:/data/nginx/conf/nginx.conf on its hosts",
						"fast_execute_script could not read /data/nginx/conf/nginx.conf on 1 of 2 hosts:",
						`- 10.0.0.3 (bk_cloud_id 0): exit code 127 (JOB host status 104), output "sh: 3: sha256sum: not found"`,
						`The read runs sha256sum as the JOB account "root"`, "set verify = false and apply once with -refresh=false"),
				},
				{
					PreConfig: func() { e.Sim.JOBv3().SetCommandMissing(3, "sha256sum", false) },
					Config:    cfg,
					PlanOnly:  true,
				},
			},
		})
	})
}

// Files on Windows hosts (a path JOB reads as Windows) are read with
// PowerShell: they match after the push, a file edited by hand differs and
// is pushed back, one deleted is missing.
func TestAccConfigFile_windows(t *testing.T) {
	for _, m := range acctest.Modes {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			e := acctest.NewEnvWith(t, m, func(o *simulator.Options) { o.CMDBHosts = 14 })
			const full = `C:\nginx\conf\nginx.conf`
			cfg := providerBlock(e) + `
resource "gse_config_file" "win" {
  bk_scope_type = "biz"
  bk_scope_id   = "2"
  bk_host_ids   = [7, 14] # bk_os_type "2"
  path          = "C:\\nginx\\conf"
  file_name     = "nginx.conf"
  account       = "Administrator"
  content       = "worker_processes 2;\r\n"
  verify        = true
}
`
			status := func(id int64, want string) statecheck.StateCheck {
				return statecheck.ExpectKnownValue("gse_config_file.win", tfjsonpath.New("host_status").AtMapKey(fmt.Sprintf("host:%d", id)).AtMapKey("status"), knownvalue.StringExact(want))
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: e.Factories(),
				Steps: []resource.TestStep{
					{
						Config:           cfg,
						ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
					},
					{
						PreConfig: func() {
							e.Sim.JOBv3().SetFile(7, full, []byte("edited by hand\r\n"))
							e.Sim.JOBv3().SetFile(14, full, nil)
						},
						RefreshState:       true,
						ExpectNonEmptyPlan: true,
						Check: resource.ComposeAggregateTestCheckFunc(
							resource.TestCheckResourceAttr("gse_config_file.win", "host_status.host:7.status", "differs"),
							resource.TestCheckResourceAttr("gse_config_file.win", "host_status.host:14.status", "missing")),
					},
					{
						Config:            cfg,
						ConfigStateChecks: []statecheck.StateCheck{status(7, "pushed"), status(14, "pushed")},
						Check: func(*terraform.State) error {
							if b, _ := e.Sim.JOBv3().File(7, full); string(b) != "worker_processes 2;\r\n" {
								return fmt.Errorf("host 7 holds %q", b)
							}
							return nil
						},
					},
				},
			})
		})
	}
}

// JOB trims the spaces around a file name: verify reads the file JOB wrote,
// and the plan after the apply is empty.
func TestAccConfigFile_trimmedName(t *testing.T) {
	inFileModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := strings.Replace(fileConfig(e, twoHosts, "worker_processes 2;\n", "verify = true"), `"nginx.conf"`, `" nginx.conf "`, 1)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gse_config_file.conf", tfjsonpath.New("id"), knownvalue.StringExact("biz:2:/data/nginx/conf/nginx.conf")),
				},
				Check:            fileOn(e, 3, "worker_processes 2;\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			}},
		})
	})
}

// Content of whitespace alone is pushed: JOB refuses only empty content.
func TestAccConfigFile_whitespace(t *testing.T) {
	inFileModes(t, func(t *testing.T, e *acctest.Env) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{{
				Config: fileConfig(e, twoHosts, " \n", "verify = true"),
				Check:  fileOn(e, 1, " \n"),
			}},
		})
	})
}

// push_count in reload_triggers: a file edited by hand that verify finds and
// the apply writes back plans, at plan, one more push, and the process is
// reloaded after the repair; no push, no reload.
func TestAccConfigFile_repairReloads(t *testing.T) {
	inFileModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := strings.Replace(fileConfig(e, twoHosts, "worker_processes 2;\n", "verify = true"),
			"reload_triggers = { conf = gse_config_file.conf.sha256 }", "reload_triggers = { conf = gse_config_file.conf.push_count }", 1)
		reloads := func(ip string, want int) resource.TestCheckFunc {
			return func(*terraform.State) error {
				if p, ok := e.Sim.GSE().Process("web", "nginx", 0, ip); !ok || p.Reloads != want {
					return fmt.Errorf("nginx on %s: registered %v, reloaded %d times, want %d", ip, ok, p.Reloads, want)
				}
				return nil
			}
		}
		count := func(n int64) plancheck.PlanCheck {
			return plancheck.ExpectKnownValue("gse_config_file.conf", tfjsonpath.New("push_count"), knownvalue.Int64Exact(n))
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{
				{
					Config:           cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{count(1)}},
				},
				{
					PreConfig: func() { e.Sim.JOBv3().SetFile(3, "/data/nginx/conf/nginx.conf", []byte("edited by hand\n")) },
					Config:    cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply:             []plancheck.PlanCheck{count(2), plancheck.ExpectResourceAction("gse_managed_process.nginx", plancheck.ResourceActionUpdate)},
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					Check: resource.ComposeAggregateTestCheckFunc(fileOn(e, 3, "worker_processes 2;\n"), reloads("10.0.0.1", 1), reloads("10.0.0.3", 1)),
				},
			},
		})
	})
}

// The nightly drift job: right after an apply that pushed a verified file,
// `plan -refresh-only -detailed-exitcode` exits 0 (the refresh reads back
// what the apply wrote), and 2 once a file is edited by hand.
func TestAccConfigFile_refreshOnlyExitCode(t *testing.T) {
	inFileModes(t, func(t *testing.T, e *acctest.Env) {
		run := acctest.NewCLIRunFrom(t, e, "1.0.0", "")
		run.WriteFile("main.tf", acctest.RequiredProviders+fileConfig(e, twoHosts, "worker_processes 2;\n", "verify = true"))
		run.Must("apply", "-auto-approve", "-no-color", "-input=false")
		refreshOnly := func(after string, want int) {
			t.Helper()
			if out, code, _ := run.Exit("plan", "-refresh-only", "-detailed-exitcode", "-no-color", "-input=false"); code != want {
				t.Fatalf("plan -refresh-only -detailed-exitcode after %s: exit %d, want %d\n%s", after, code, want, out)
			}
		}
		refreshOnly("the apply that pushed", 0)
		e.Sim.JOBv3().SetFile(3, "/data/nginx/conf/nginx.conf", []byte("edited by hand\n"))
		refreshOnly("an edit by hand", 2)
	})
}
