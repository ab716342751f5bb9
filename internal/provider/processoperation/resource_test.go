package processoperation_test

import (
	"encoding/json"
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

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

const opAddr = "gse_process_operation.test"

// gseOperation targets the process of e.config with op, its spec taken from the resource.
func gseOperation(e *acctest.Env, op, trigger string) string {
	return e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "0:10.0.0.2"}, Extra: "running = true"}) + fmt.Sprintf(`
resource "gse_process_operation" "test" {
  op       = %q
  triggers = { config = %q }
  gse = {
    meta  = { namespace = "gse", name = gse_managed_process.test.meta.name }
    hosts = [for h in gse_managed_process.test.hosts : { ip = h.ip, bk_cloud_id = h.bk_cloud_id }]
    spec  = gse_managed_process.test.spec
  }
}
`, op, trigger)
}

func TestAccProcessOperation_gse(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	var tasks int // operate tasks before the operation's destroy
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				Config: gseOperation(e, "restart", "v1"),
				Check: resource.ComposeAggregateTestCheckFunc(
					e.SimCheck(0, "10.0.0.1", acctest.Restarts(1)), e.SimCheck(0, "10.0.0.2", acctest.Restarts(1)),
					resource.TestCheckResourceAttrPair(opAddr, "id", opAddr, "task_id"),
					resource.TestMatchResourceAttr(opAddr, "task_id", regexp.MustCompile(`^GSETASK:`)),
					resource.TestCheckResourceAttr(opAddr, "results.#", "2"),
					resource.TestCheckResourceAttr(opAddr, "results.0.process", "gse/proc-test"),
					resource.TestCheckResourceAttr(opAddr, "results.0.error_code", "0"),
				),
			},
			{
				// Same triggers: nothing runs.
				Config:           gseOperation(e, "restart", "v1"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            e.SimCheck(0, "10.0.0.1", acctest.Restarts(1)),
			},
			{
				// New triggers: the operation runs again.
				Config: gseOperation(e, "restart", "v2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(opAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.1", acctest.Restarts(2)), e.SimCheck(0, "10.0.0.2", acctest.Restarts(2))),
			},
			{
				// A status query: its content is parsed into pid, managed and version.
				Config: gseOperation(e, "status", "v2"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(opAddr, tfjsonpath.New("results").AtSliceIndex(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"ip": knownvalue.StringExact("10.0.0.1"), "managed": knownvalue.Bool(true), "version": knownvalue.StringExact("1.0.0"),
						"content": knownvalue.StringRegexp(regexp.MustCompile(`"procname":"proc-test"`)),
					})),
				},
				Check: e.SimPID(opAddr, "results.0.pid", 0, "10.0.0.1"),
			},
			{
				// Start on running processes answers 828: a success, reported as such.
				Config: gseOperation(e, "start", "v2"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(opAddr, "results.0.error_code", "828"),
					resource.TestCheckResourceAttr(opAddr, "results.1.error_code", "828"),
				),
			},
			{
				// Destroying the operation sends nothing: it ran. The process it
				// acted on is left as it is, so no other resource sends anything.
				PreConfig: func() { tasks = len(e.Sim.Tasks()) },
				Config:    e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "0:10.0.0.2"}, Extra: "running = true"}),
				Check: func(*terraform.State) error {
					if sent := e.Sim.Tasks()[tasks:]; len(sent) != 0 {
						return fmt.Errorf("destroying the operation sent %d tasks: %+v", len(sent), sent)
					}
					return nil
				},
			},
			{
				// A failing host fails the apply, by IP.
				PreConfig: func() {
					e.Sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: "10.0.0.2", Ops: []int{9}, Code: 836, Message: "process still alive after kill", Times: 1})
				},
				Config:      gseOperation(e, "kill", "v2"),
				ExpectError: regexp.MustCompile(`(?s)Could not run kill on process gse/proc-test.*10\.0\.0\.2 \(bk_cloud_id 0\): GSE code 836: process still alive\s+after kill`),
			},
		},
	})
}

// jobOperation runs op through JOB on nginx at 10.0.0.1 and 10.0.0.2; extra goes into the process_infos item.
func jobOperation(e *acctest.Env, op, trigger, extra string) string {
	return e.ProviderBlock() + fmt.Sprintf(`
resource "gse_process_operation" "test" {
  op       = %q
  triggers = { run = %q }
  job = {
    bk_biz_id = 2
    process_infos = [{
      setup_path = "/data/nginx/bin"
      proc_name  = "nginx"
      pid_path   = "/data/nginx/run/nginx.pid"
      %s
      ip_list    = [{ bk_cloud_id = 0, ip = "10.0.0.1" }, { bk_cloud_id = 0, ip = "10.0.0.2" }]
    }]
  }
}
`, op, trigger, extra)
}

func TestAccProcessOperation_job(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	calls := func(api string, n int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			if got := e.Sim.Calls(api); got != n {
				return fmt.Errorf("%s called %d times, want %d", api, got, n)
			}
			return nil
		}
	}
	running := func(want bool) resource.TestCheckFunc {
		return func(*terraform.State) error {
			for _, ip := range []string{"10.0.0.1", "10.0.0.2"} {
				p, ok := e.Sim.JOB().Process(acctest.JobScope, acctest.JobIndex, 0, ip)
				if !ok || p.Running != want {
					return fmt.Errorf("nginx on %s: %+v, want running = %v", ip, p, want)
				}
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		Steps: []resource.TestStep{
			{
				// JOB operate_process, with its own fields.
				Config: jobOperation(e, "start", "1", `start_cmd = "./nginx"
      contact = "ops"
      type = 1`),
				Check: resource.ComposeAggregateTestCheckFunc(
					calls("job/operate_process", 1),
					running(true),
					resource.TestCheckResourceAttr(opAddr, "results.#", "2"),
					resource.TestCheckResourceAttr(opAddr, "results.0.process", "/data/nginx/bin/nginx"),
					resource.TestCheckResourceAttr(opAddr, "results.1.ip", "10.0.0.2"),
				),
			},
			{
				// cmd_shell_ext sends it with JOB operate_proc.
				Config: jobOperation(e, "stop", "2", `cmd_shell_ext = "sh"
      account = "root"`),
				Check: resource.ComposeAggregateTestCheckFunc(calls("job/operate_proc", 1), running(false)),
			},
			{
				// Stop again: 829 (not running) is a success.
				Config: jobOperation(e, "stop", "3", `cmd_shell_ext = "sh"`),
				Check:  resource.TestCheckResourceAttr(opAddr, "results.0.error_code", "829"),
			},
			{
				// operate_proc runs JOB's own start.sh as a resident process; the unset
				// cpu_lmt goes as 0, so no server default applies.
				Config: jobOperation(e, "start", "5", `cmd_shell_ext = "sh"
      mem_lmt = 10`),
				Check: resource.ComposeAggregateTestCheckFunc(calls("job/operate_proc", 3), running(true), func(*terraform.State) error {
					p, _ := e.Sim.JOB().Process(acctest.JobScope, acctest.JobIndex, 0, "10.0.0.1")
					var def simulator.JobDefinition
					if err := json.Unmarshal(p.Spec, &def); err != nil || def.StartCmd != "cd /data/nginx/bin && ./start.sh nginx &" ||
						def.Type != 1 || def.CPULmt != 0 || def.MemLmt != 10 {
						return fmt.Errorf("operate_proc definition %+v (%v)", def, err)
					}
					return nil
				}),
			},
			{
				PreConfig: func() {
					e.Sim.AddHostFault(simulator.HostFault{API: "job/operate_process", IP: "10.0.0.1", Code: 117, Message: "agent offline", Times: 1})
				},
				Config:      jobOperation(e, "restart", "4", ""),
				ExpectError: regexp.MustCompile(`(?s)Could not run restart on process JOB biz:2//data/nginx/bin/nginx.*10\.0\.0\.1 \(bk_cloud_id 0\): GSE code 117: agent offline`),
			},
		},
	})
}

func TestAccProcessOperation_validation(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	for _, tc := range []struct{ cfg, want string }{
		{jobOperation(e, "start", "1", `cmd_shell_ext = "sh"
      start_cmd = "./nginx"`), `only .setup_path., .proc_name., .pid_path., .account., .cmd_shell_ext., .cpu_lmt., .mem_lmt.; unset .start_cmd.`},
		{jobOperation(e, "start", "1", `cmd_shell_ext = "zsh"`), `cmd_shell_ext value must be one of: \["sh" "bat" "ps1"\]`},
		{jobOperation(e, "launch", "1", ""), `op value must be one of: \["start" "stop" "status" "restart" "reload" "kill"\]`},
		{e.ProviderBlock() + `
resource "gse_process_operation" "test" {
  op = "start"
}`, `Set gse \(a GSE process: meta, hosts and spec\) or job`},
	} {
		// These messages wrap in the terminal: a space in the pattern matches any whitespace.
		e.ExpectPlanErrors(t, []acctest.PlanError{{Config: tc.cfg, Want: strings.ReplaceAll(tc.want, " ", `\s+`)}})
	}
}
