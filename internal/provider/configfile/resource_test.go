package configfile_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// providerBlock is the provider for these tests: through ESB, endpoint; through
// the gateway, the GSE, bk-cmdb and bk-job gateways (the simulator serves them
// all at its root) with a verified user (bk_token), which bk-job's v3 APIs need.
func providerBlock(e *acctest.Env) string {
	b := e.ProviderBlock()
	if e.Gateway {
		b = strings.Replace(b, "gateway_url", fmt.Sprintf("endpoint         = %q\n  cmdb_gateway_url = %q\n  job_gateway_url  = %q\n  gateway_url", e.URL, e.URL, e.URL), 1)
		b = strings.Replace(b, `username   = "admin"`, `bk_token   = "token-of-admin"`, 1)
	}
	return b
}

// inFileModes runs test on both paths, each against a business of 5 hosts.
func inFileModes(t *testing.T, test func(t *testing.T, e *acctest.Env)) {
	for _, m := range acctest.Modes {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			test(t, acctest.NewEnvWith(t, m, func(o *simulator.Options) { o.CMDBHosts = 5 }))
		})
	}
}

// fileConfig is fileResources with the provider block of e.
func fileConfig(e *acctest.Env, hosts, content, extra string) string {
	return providerBlock(e) + fileResources(hosts, content, extra)
}

// fileResources are nginx.conf with content on hosts, and a process reloaded
// in batches of one host when the file changes.
func fileResources(hosts, content, extra string) string {
	return fmt.Sprintf(`
resource "gse_config_file" "conf" {
  bk_scope_type = "biz"
  bk_scope_id   = "2"
  hosts         = %s
  path          = "/data/nginx/conf"
  file_name     = "nginx.conf"
  account       = "root"
  content       = %q
  %s
}

resource "gse_managed_process" "nginx" {
  meta  = { namespace = "web", name = "nginx" }
  hosts = gse_config_file.conf.hosts
  spec = {
    identity       = { proc_name = "nginx", setup_path = "/data/nginx", pid_path = "/data/nginx/run/nginx.pid", user = "root" }
    control        = { start_cmd = "./start.sh", stop_cmd = "./stop.sh", reload_cmd = "./reload.sh" }
    resource       = { cpu = 10.0, mem = 10.0 }
    monitor_policy = { auto_type = 1 }
  }
  running         = true
  reload_triggers = { conf = gse_config_file.conf.sha256 }
  rollout         = { batch_size = 1 }
}
`, hosts, content, extra)
}

func hexSum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// fileOn checks host id's copy of the file.
func fileOn(e *acctest.Env, id int64, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, ok := e.Sim.JOBv3().File(id, "/data/nginx/conf/nginx.conf")
		if !ok || string(got) != want {
			return fmt.Errorf("host %d holds %q (exists %v), want %q", id, got, ok, want)
		}
		return nil
	}
}

// TestAccConfigFile: a file pushed to hosts (by IP, and through the gateway
// by agent id), its hash reloading the process in its batches in the same
// apply; an edit pushed; an out-of-band edit found by verify and repaired on
// that host only; a host whose agent is down named, the others done, and
// finished by the next apply.
func TestAccConfigFile(t *testing.T) {
	for _, m := range acctest.Modes {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			e := acctest.NewEnvWith(t, m, func(o *simulator.Options) { o.CMDBHosts = 10 })
			hosts := `[{ ip = "10.0.0.1", bk_cloud_id = 0 }, { ip = "10.0.0.3", bk_cloud_id = 0 }]`
			keyA, keyB := "0:10.0.0.1", "0:10.0.0.3"
			if e.Gateway {
				// Host 2 has a GSE 2.0 agent id in CMDB: JOB gets its bk_host_id from CMDB.
				hosts = `[{ agent_id = "` + e.Sim.CMDB().Hosts()[1].AgentID + `" }, { ip = "10.0.0.3", bk_cloud_id = 0 }]`
				keyA = e.Sim.CMDB().Hosts()[1].AgentID
			}
			idA := map[bool]int64{false: 1, true: 2}[e.Gateway]
			reloads := func(ip string, want int) resource.TestCheckFunc {
				return func(*terraform.State) error {
					p, ok := e.Sim.GSE().Process("web", "nginx", 0, ip)
					if !ok || p.Reloads != want {
						return fmt.Errorf("nginx on %s: registered %v, reloaded %d times, want %d", ip, ok, p.Reloads, want)
					}
					return nil
				}
			}
			ipA := map[bool]string{false: "10.0.0.1", true: "10.0.0.2"}[e.Gateway]
			v1, v2 := "worker_processes 2;\n", "worker_processes 4;\n"
			var pushes int
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: e.Factories(),
				Steps: []resource.TestStep{
					{
						Config: fileConfig(e, hosts, v1, ""),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectKnownValue("gse_config_file.conf", tfjsonpath.New("sha256"), knownvalue.StringExact(hexSum(v1))),
						}},
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue("gse_config_file.conf", tfjsonpath.New("host_status").AtMapKey(keyA),
								knownvalue.ObjectExact(map[string]knownvalue.Check{"status": knownvalue.StringExact("pushed"), "sha256": knownvalue.StringExact(hexSum(v1))})),
						},
						Check: resource.ComposeAggregateTestCheckFunc(fileOn(e, idA, v1), fileOn(e, 3, v1)),
					},
					{
						// A new content: pushed one host at a time (a JOB job each), then the process
						// reloaded one host at a time, in this apply.
						PreConfig: func() { pushes = e.Sim.Calls("jobv3/push_config_file") },
						Config:    fileConfig(e, hosts, v2, "rollout = { batch_size = 1 }"),
						Check: resource.ComposeAggregateTestCheckFunc(fileOn(e, idA, v2), fileOn(e, 3, v2), reloads(ipA, 1), reloads("10.0.0.3", 1),
							func(*terraform.State) error {
								if n := e.Sim.Calls("jobv3/push_config_file") - pushes; n != 2 {
									return fmt.Errorf("%d push jobs for 2 hosts in batches of 1, want 2", n)
								}
								return nil
							}),
						ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
					},
					{
						// verify reads the files: someone changed host 3's; the plan pushes there.
						PreConfig: func() { e.Sim.JOBv3().SetFile(3, "/data/nginx/conf/nginx.conf", []byte("edited by hand\n")) },
						Config:    fileConfig(e, hosts, v2, "rollout = { batch_size = 1 }\n  verify = true"),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction("gse_config_file.conf", plancheck.ResourceActionUpdate),
							plancheck.ExpectResourceAction("gse_managed_process.nginx", plancheck.ResourceActionNoop),
						}},
						Check: resource.ComposeAggregateTestCheckFunc(fileOn(e, 3, v2), reloads("10.0.0.3", 1)),
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue("gse_config_file.conf", tfjsonpath.New("host_status").AtMapKey(keyB).AtMapKey("status"), knownvalue.StringExact("pushed")),
						},
					},
					{
						// An agent down: the error names its host as hosts gives it; the other holds the new file.
						PreConfig: func() { e.Sim.JOBv3().SetAgentDown(3, true) },
						Config:    fileConfig(e, hosts, "worker_processes 8;\n", "verify = true"),
						ExpectError: acctest.Wrapped("Could not push ", "failed on 1 of 2 hosts:",
							"- 10.0.0.3 (bk_cloud_id 0): GSE code 1: JOB host status (the GSE agent is down"),
						Check: fileOn(e, idA, "worker_processes 8;\n"),
					},
					{
						// Back up: only host 3 is pushed to.
						PreConfig: func() {
							e.Sim.JOBv3().SetAgentDown(3, false)
							e.Sim.JOBv3().SetFile(idA, "/data/nginx/conf/nginx.conf", []byte("worker_processes 8;\n"))
						},
						Config:           fileConfig(e, hosts, "worker_processes 8;\n", "verify = true"),
						Check:            resource.ComposeAggregateTestCheckFunc(fileOn(e, idA, "worker_processes 8;\n"), fileOn(e, 3, "worker_processes 8;\n")),
						ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
					},
				},
			})
		})
	}
}

// Refused at plan: an empty file (JOB's 1241002), hosts and bk_host_ids
// together, a name with a directory or blank once JOB trims it, content whose
// Base64 is over the 20,000,000 characters of JOB's JSON reader.
func TestAccConfigFile_planErrors(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnvWith(t, acctest.Modes[0], func(o *simulator.Options) { o.CMDBHosts = 5 })
	res := func(args string) string {
		return e.ProviderBlock() + `
resource "gse_config_file" "c" {
  bk_scope_type = "biz"
  bk_scope_id   = "2"
  path          = "/data/conf"
  file_name     = "a.conf"
  account       = "root"
  ` + args + `
}
`
	}
	e.ExpectPlanErrors(t, []acctest.PlanError{
		{Config: res(`bk_host_ids = [1]
  content = ""`), Want: `JOB cannot push an empty file`},
		{Config: res(`bk_host_ids = [1]
  hosts = [{ ip = "10.0.0.1", bk_cloud_id = 0 }]
  content = "x"`), Want: `Exactly one of these attributes must be configured: \[hosts,bk_host_ids\]`},
		{Config: strings.Replace(res(`bk_host_ids = [1]
  content = "x"`), `"a.conf"`, `"conf/a.conf"`, 1), Want: `must not hold / or`},
		{Config: strings.Replace(res(`bk_host_ids = [1]
  content = "x"`), `"a.conf"`, `" \t "`, 1), Want: `file_name " \\t " is blank`},
		{Config: res(`bk_host_ids = [1]
  content = join("", [for i in range(1000) : format("%015001d", 0)])`), Want: acctest.WrappedPattern(`content holds 15001000 bytes; push_config_file sends a file as one Base64 string`)},
	})
}

// The write-only content (Terraform 1.11+) is pushed and never in the state:
// only its hash is; a new version pushes the new content.
func TestAccConfigFile_writeOnly(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnvWith(t, acctest.Modes[0], func(o *simulator.Options) { o.CMDBHosts = 5 })
	cfg := func(secret, version string) string {
		return e.ProviderBlock() + fmt.Sprintf(`
resource "gse_config_file" "secret" {
  bk_scope_type      = "biz"
  bk_scope_id        = "2"
  bk_host_ids        = [1, 2]
  path               = "/data/app/conf"
  file_name          = "db.password"
  account            = "root"
  content_wo         = %q
  content_wo_version = %q
}
`, secret, version)
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		ProtoV6ProviderFactories: e.Factories(),
		Steps: []resource.TestStep{
			{
				Config: cfg("s3cr3t-1", "1"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gse_config_file.secret", tfjsonpath.New("content_wo"), knownvalue.Null()),
					statecheck.ExpectKnownValue("gse_config_file.secret", tfjsonpath.New("content"), knownvalue.Null()),
					statecheck.ExpectKnownValue("gse_config_file.secret", tfjsonpath.New("sha256"), knownvalue.StringExact(hexSum("s3cr3t-1"))),
				},
				Check: func(*terraform.State) error {
					if b, _ := e.Sim.JOBv3().File(2, "/data/app/conf/db.password"); string(b) != "s3cr3t-1" {
						return fmt.Errorf("host 2 holds %q", b)
					}
					return nil
				},
			},
			{
				Config: cfg("s3cr3t-2", "2"),
				Check: func(*terraform.State) error {
					if b, _ := e.Sim.JOBv3().File(1, "/data/app/conf/db.password"); string(b) != "s3cr3t-2" {
						return fmt.Errorf("host 1 holds %q", b)
					}
					return nil
				},
			},
		},
	})
}

// JOB's refusals reach the user: an account alias the business lacks, named,
// with what to do about it (not an agent to start, nor a host_status that
// never reached the state);
// and through the bk-job gateway with bk_username alone, a plan warning then
// the refusal naming the credential JOB needs.
func TestAccConfigFile_refusals(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnvWith(t, acctest.Modes[1], func(o *simulator.Options) { o.CMDBHosts = 5 })
	file := `
resource "gse_config_file" "c" {
  bk_scope_type = "biz"
  bk_scope_id   = "2"
  bk_host_ids   = [1]
  path          = "/data/conf"
  file_name     = "a.conf"
  account       = %q
  content       = "x"
}
`
	withUser := strings.Replace(providerBlock(e), `bk_token   = "token-of-admin"`, `username   = "admin"`, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		Steps: []resource.TestStep{
			{Config: providerBlock(e) + fmt.Sprintf(file, "nginx"), ExpectError: acctest.Wrapped("push_config_file: code 1244003: Account [nginx] does not exist",
				`JOB has no execution account with the alias "nginx" in biz 2: set account`, "Nothing was pushed.")},
			{Config: withUser + fmt.Sprintf(file, "root"), ExpectError: regexp.MustCompile(`(?s)` + acctest.WrappedPattern(`bk_username is not verified.*verified user on the bk-job gateway: set bk_token or a user's access_token`))},
		},
	})
}
