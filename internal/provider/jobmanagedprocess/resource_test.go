package jobmanagedprocess_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// unhosted: the agent knows the process and no longer hosts it (JOB's op_type 4).
func unhosted(p simulator.Process) error {
	if p.Hosted {
		return fmt.Errorf("still hosted: %+v", p)
	}
	return nil
}

// startCmdIs: hosted and running with the definition JOB handed GSE, as configured.
func startCmdIs(want string) func(simulator.Process) error {
	return func(p simulator.Process) error {
		var def simulator.JobDefinition
		_ = json.Unmarshal(p.Spec, &def)
		if def.StartCmd != want || def.Type != 1 || def.Account != "root" || def.Contact != "ops" || def.PidPath != "/data/nginx/run/nginx.pid" {
			return fmt.Errorf("definition %+v, want start_cmd %q, type 1, account root, contact ops", def, want)
		}
		return acctest.HostedAndRunning(p)
	}
}

// jobHostingTasks asserts the JOB tasks so far: hosting only through
// operate_process op_type 3 (register) and 4 (unregister), status through 2,
// never manage_proc, which on the JOB server stops (1) or queries (2).
func jobHostingTasks(e *acctest.Env, wantOps ...int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var ops []int
		for _, tk := range e.Sim.Tasks() {
			if !strings.HasPrefix(tk.API, "job/") {
				continue
			}
			if tk.API != "job/operate_process" {
				return fmt.Errorf("a JOB task through %s", tk.API)
			}
			if op := tk.Targets[0].Op; op != int(gse.OpStatus) {
				ops = append(ops, op)
			}
		}
		if !slices.Equal(ops, wantOps) {
			return fmt.Errorf("hosting op_types %v, want %v", ops, wantOps)
		}
		return nil
	}
}

func TestAccJobManagedProcess_lifecycle(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	repairCfg := e.JobConfig("./nginx -c v2", "0:10.0.0.2", "1:10.0.0.3")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				Config: e.JobConfig("./nginx", "0:10.0.0.1", "0:10.0.0.2"),
				Check: resource.ComposeAggregateTestCheckFunc(
					e.JobCheck(0, "10.0.0.1", startCmdIs("./nginx")),
					e.JobCheck(0, "10.0.0.2", startCmdIs("./nginx")),
					resource.TestCheckResourceAttr(acctest.JobAddr, "id", "biz:2//data/nginx/bin/nginx"),
					resource.TestCheckResourceAttr(acctest.JobAddr, "ip_status.0:10.0.0.1.status", "running"),
					resource.TestCheckResourceAttr(acctest.JobAddr, "ip_status.0:10.0.0.2.managed", "true"),
					resource.TestCheckResourceAttr(acctest.JobAddr, "account", "root"),
					jobHostingTasks(e, int(gse.OpHost)),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// The definition changes; 10.0.0.1 leaves and 10.0.0.3 (cloud 1) joins.
				Config: repairCfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.JobAddr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					e.JobCheck(0, "10.0.0.1", unhosted),
					e.JobCheck(0, "10.0.0.2", startCmdIs("./nginx -c v2")),
					e.JobCheck(1, "10.0.0.3", startCmdIs("./nginx -c v2")),
				),
			},
			{
				// Hosting is unregistered behind Terraform's back on 10.0.0.3: the IP leaves the state.
				PreConfig: func() {
					if err := e.Sim.JOB().Drift(simulator.DriftUnhost, acctest.JobScope, acctest.JobIndex, 1, "10.0.0.3"); err != nil {
						t.Fatal(err)
					}
				},
				RefreshState: true, ExpectNonEmptyPlan: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(acctest.JobAddr, "ip_list.#", "1"),
					resource.TestCheckResourceAttr(acctest.JobAddr, "ip_list.0.ip", "10.0.0.2"),
				),
			},
			{
				Config: repairCfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.JobAddr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: e.JobCheck(1, "10.0.0.3", acctest.HostedAndRunning),
			},
			{
				ResourceName: acctest.JobAddr, ImportState: true, ImportStateVerify: true,
				ImportStateId: "biz:2//data/nginx/bin/nginx@0:10.0.0.2,1:10.0.0.3?pid_path=/data/nginx/run/nginx.pid&contact=ops",
				// JOB has no API that returns a definition: only the scope, setup_path,
				// proc_name, the ID's pid_path, contact and account, and ip_list are known
				// after import (ip_status is read with pid_path); the next apply re-registers.
				ImportStateVerifyIgnore: []string{"cfg_path", "log_path", "start_cmd", "stop_cmd", "restart_cmd",
					"reload_cmd", "kill_cmd", "type", "cpu_lmt", "mem_lmt", "instance_num", "op_timeout", "start_check_begin_time",
					"start_check_end_time", "timeouts"},
			},
		},
	})
}

// One IP's failure names the IP; the registered one stays in the (tainted) state and the next apply recovers.
func TestAccJobManagedProcess_ipFailure(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := e.JobConfig("./nginx", "0:10.0.0.1", "0:10.0.0.2")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					e.Sim.AddHostFault(simulator.HostFault{API: "job/operate_process", IP: "10.0.0.2", Ops: []int{int(gse.OpHost)}, Code: 65535, Message: "nginx: permission denied", Times: 1})
				},
				Config:      cfg,
				ExpectError: regexp.MustCompile(`(?s)Could not create process JOB biz:2//data/nginx/bin/nginx.*operate_process op_type 3 \(register hosting\).*10\.0\.0\.2 \(bk_cloud_id 0\): GSE code\s+65535: nginx: permission denied`),
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.JobAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(e.JobCheck(0, "10.0.0.1", acctest.HostedAndRunning), e.JobCheck(0, "10.0.0.2", acctest.HostedAndRunning)),
			},
		},
	})
}

func TestAccJobManagedProcess_validation(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	base := e.JobConfig("./nginx", "0:10.0.0.1")
	var cases []acctest.PlanError
	for _, tc := range []struct{ from, to, want string }{
		{`type                   = 1`, `type = 0`, `cycle_time is required for a periodic process`},
		{`bk_scope_id            = "2"`, `bk_scope_id = "two"`, `must be a number written as a string`},
		{`bk_scope_type          = "biz"`, `bk_scope_type = "project"`, `bk_scope_type value must be one of: \["biz" "biz_set"\]`},
		{`cpu_lmt                = 20`, `cpu_lmt = 150`, acctest.WrappedPattern(`cpu_lmt must be 0 to 100, got 150\.`)},
		{`type                   = 1`, `type = 3`, acctest.WrappedPattern(`type must be 0 \(periodic\), 1 \(resident\) or 2 \(one-shot\), got 3\.`)},
		{`pid_path               = "/data/nginx/run/nginx.pid"`, `pid_path = "run/nginx.pid"`, `pid_path must be an absolute path`},
		// JOB refuses a process without them (ILLEGAL_PARAM); type has no silent default.
		{`pid_path               = "/data/nginx/run/nginx.pid"`, ``, `The argument "pid_path" is required`},
		{`setup_path             = "/data/nginx/bin"`, ``, `The argument "setup_path" is required`},
		{`type                   = 1`, ``, `The argument "type" is required`},
		{`contact                = "ops"`, `proc_owner = "ops"`, `An argument named "proc_owner" is not expected here`},
		{`contact                = "ops"`, `account = ""`, `account string length must be at least 1`},
	} {
		cases = append(cases, acctest.PlanError{Config: acctest.Edited(t, base, tc.from, tc.to), Want: tc.want})
	}
	e.ExpectPlanErrors(t, cases)
}

func TestAccJobManagedProcess_importErrors(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	for id, want := range map[string]string{
		"biz:2//data/nginx/bin/nginx":                                                              `missing '@'`,
		"project:2//data/nginx/bin/nginx@0:10.0.0.1":                                               `is not biz:<id> or biz_set:<id>`,
		"biz:2/nginx@0:10.0.0.1":                                                                   `is not setup_path/proc_name`,
		"biz:2//data/nginx/bin/nginx@10.0.0.1":                                                     `is not bk_cloud_id:ip`,
		"biz:2//data/nginx/bin/nginx@0:10.0.0.1,0:10.0.0.1":                                        `listed twice`,
		"biz:2//data/nginx/bin/nginx@0:10.0.0.1":                                                   `missing ?pid_path=...`,
		"biz:2//data/nginx/bin/nginx@0:10.0.0.1?pid_path=/data/nginx/run/nginx.pid&proc_owner=ops": `unknown query parameter "proc_owner"`,
	} {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{{
				Config: e.JobConfig("./nginx", "0:10.0.0.1"), ResourceName: acctest.JobAddr, ImportState: true, ImportStateId: id,
				ExpectError: regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(want), " ", `\s+`) + `(?s).*Expected\s+bk_scope_type:bk_scope_id`),
			}},
		})
	}
}
