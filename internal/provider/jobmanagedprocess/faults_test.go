package jobmanagedprocess_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// Issue 7 item 5: status answers in the documentation's shape (content an
// object, startTime "", stime/utime strings, no isAuto) and with string times
// are read: no IP leaves the state, no plan shows drift.
func TestAccJobManagedProcess_contentShapes(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := e.JobConfig("./nginx", "0:10.0.0.1", "0:10.0.0.2")
	var steps []resource.TestStep
	steps = append(steps, resource.TestStep{Config: cfg})
	for _, shape := range []simulator.JobContentShape{simulator.JobContentDoc, simulator.JobContentStrings} {
		steps = append(steps, resource.TestStep{
			PreConfig: func() { e.Sim.JOB().SetContentShape(shape) },
			Config:    cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(acctest.JobAddr, "ip_list.#", "2"),
				resource.TestCheckResourceAttr(acctest.JobAddr, "ip_status.0:10.0.0.1.status", "running"),
				resource.TestCheckResourceAttr(acctest.JobAddr, "ip_status.0:10.0.0.2.running_instances", "1"),
			),
		})
	}
	// In the documented shape the agent does not say whether it hosts: unknown is not drift.
	steps[1].Check = resource.ComposeAggregateTestCheckFunc(steps[1].Check, resource.TestCheckNoResourceAttr(acctest.JobAddr, "ip_status.0:10.0.0.1.managed"))
	// With isAuto present, unhosting behind Terraform's back is still drift.
	steps = append(steps, resource.TestStep{
		PreConfig: func() {
			if err := e.Sim.JOB().Drift(simulator.DriftUnhost, acctest.JobScope, acctest.JobIndex, 0, "10.0.0.2"); err != nil {
				t.Fatal(err)
			}
		},
		RefreshState: true, ExpectNonEmptyPlan: true,
		Check: resource.TestCheckResourceAttr(acctest.JobAddr, "ip_list.#", "1"),
	}, resource.TestStep{Config: cfg, Check: e.JobCheck(0, "10.0.0.2", acctest.HostedAndRunning)})
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: e.Factories(), CheckDestroy: e.CheckSimEmpty, Steps: steps})
}

// Issue 7 item 7: every instance counts. The first of two instances is down,
// the second runs: the process runs on the host.
func TestAccJobManagedProcess_instances(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := acctest.Edited(t, e.JobConfig("./nginx", "0:10.0.0.1"), "instance_num           = 1", "instance_num = 2")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig:    func() { e.Sim.JOB().InstancesDown(acctest.JobScope, acctest.JobIndex, 0, "10.0.0.1", 1) },
				RefreshState: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(acctest.JobAddr, "ip_status.0:10.0.0.1.status", "running"),
					resource.TestCheckResourceAttr(acctest.JobAddr, "ip_status.0:10.0.0.1.running_instances", "1"),
					resource.TestCheckResourceAttr(acctest.JobAddr, "ip_status.0:10.0.0.1.managed", "true"),
					resource.TestMatchResourceAttr(acctest.JobAddr, "ip_status.0:10.0.0.1.pid", regexp.MustCompile(`^[1-9][0-9]*$`)),
				),
			},
		},
	})
}

// jobOps asserts how many operate_process tasks of op the simulator served
// (the simulator refuses any without setup_path, proc_name or pid_path, as JOB does).
func jobOps(e *acctest.Env, op gse.OpType, want int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		n := 0
		for _, tk := range e.Sim.Tasks() {
			if tk.API == "job/operate_process" && tk.Targets[0].Op == int(op) {
				n++
			}
		}
		if n != want {
			return fmt.Errorf("%d operate_process tasks of %s, want %d", n, op, want)
		}
		return nil
	}
}

// Issue 7 item 6: an import with value_key updates in place at the next apply,
// and a destroy straight after import carries pid_path, which JOB requires.
func TestAccJobManagedProcess_importValueKey(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := acctest.Edited(t, e.JobConfig("./nginx", "0:10.0.0.1", "0:10.0.0.2"), `contact                = "ops"`, `contact = "ops"
  value_key  = "key_test"`)
	id := "biz:2//data/nginx/bin/nginx@0:10.0.0.1,0:10.0.0.2?contact=ops&pid_path=%2Fdata%2Fnginx%2Frun%2Fnginx.pid&value_key=key_test"
	importBlock := fmt.Sprintf("\nimport {\n  to = %s\n  id = %q\n}\n", acctest.JobAddr, id)
	forget := e.ProviderBlock() + fmt.Sprintf("\nremoved {\n  from = %s\n  lifecycle {\n    destroy = false\n  }\n}\n", acctest.JobAddr)
	hostedByKey := func(ip string) resource.TestCheckFunc {
		return acctest.ExpectProc("JOB key_test "+ip, func() (simulator.Process, bool) { return e.Sim.JOB().Process(acctest.JobScope, "key_test", 0, ip) }, acctest.HostedAndRunning)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{Config: cfg, Check: resource.ComposeAggregateTestCheckFunc(hostedByKey("10.0.0.1"), hostedByKey("10.0.0.2"),
				resource.TestCheckResourceAttr(acctest.JobAddr, "id", "biz:2//data/nginx/bin/nginx?value_key=key_test"))},
			{
				ResourceName: acctest.JobAddr, ImportState: true, ImportStateVerify: true, ImportStateId: id,
				ImportStateVerifyIgnore: []string{"cfg_path", "log_path", "start_cmd", "stop_cmd", "restart_cmd", "reload_cmd", "kill_cmd", "type",
					"cpu_lmt", "mem_lmt", "instance_num", "op_timeout", "start_check_begin_time", "start_check_end_time", "timeouts"},
			},
			{Config: forget},
			{
				Config: cfg + importBlock,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.JobAddr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(hostedByKey("10.0.0.1"), hostedByKey("10.0.0.2"), jobOps(e, gse.OpHost, 2)),
			},
			{Config: forget},
			{Config: cfg, ResourceName: acctest.JobAddr, ImportState: true, ImportStatePersist: true, ImportStateId: id},
			{Config: cfg, Destroy: true, Check: jobOps(e, gse.OpUnhost, 1)},
		},
	})
}

// A midway-failing update: the definition changes on the kept IPs (that
// re-register succeeds) and adding 10.0.0.3 fails. The state records exactly
// that: the new definition, the two kept IPs, not the new one.
func TestAccJobManagedProcess_updateFailsMidway(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	v2 := e.JobConfig("./nginx -c v2", "0:10.0.0.1", "0:10.0.0.2", "0:10.0.0.3")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{Config: e.JobConfig("./nginx", "0:10.0.0.1", "0:10.0.0.2")},
			{
				PreConfig: func() {
					e.Sim.AddHostFault(simulator.HostFault{API: "job/operate_process", IP: "10.0.0.3", Ops: []int{int(gse.OpHost)}, Code: 65535, Message: "disk full", Times: 1})
				},
				Config:      v2,
				ExpectError: regexp.MustCompile(`(?s)Could not update process JOB biz:2//data/nginx/bin/nginx.*10\.0\.0\.3 \(bk_cloud_id 0\): GSE code\s+65535: disk full`),
			},
			{
				RefreshState: true, ExpectNonEmptyPlan: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(acctest.JobAddr, "ip_list.#", "2"),
					resource.TestCheckResourceAttr(acctest.JobAddr, "start_cmd", "./nginx -c v2"),
					e.JobCheck(0, "10.0.0.1", startCmdIs("./nginx -c v2")),
					e.JobCheck(0, "10.0.0.2", startCmdIs("./nginx -c v2")),
					e.JobAbsent("10.0.0.3"),
				),
			},
			{
				Config: v2,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.JobAddr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: e.JobCheck(0, "10.0.0.3", startCmdIs("./nginx -c v2")),
			},
		},
	})
}

// Issue 6: a reordered ip_list plans no change.
func TestAccJobManagedProcess_reorderedIPs(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{Config: e.JobConfig("./nginx", "0:10.0.0.1", "1:10.0.0.2", "0:2001:db8::1")},
			{
				Config:           e.JobConfig("./nginx", "0:2001:db8::1", "0:10.0.0.1", "1:10.0.0.2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}

// Issue 7 item 9: inputs that used to pass plan.
func TestAccJobManagedProcess_inputValidation(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	base := e.JobConfig("./nginx", "0:10.0.0.1")
	var cases []acctest.PlanError
	for _, tc := range []struct{ from, to, want string }{
		{`proc_name              = "nginx"`, `proc_name = ""`, `proc_name string length must be at least 1`},
		{`contact                = "ops"`, `contact = ""`, `contact string length must be at least 1`},
		{`start_cmd              = "./nginx"`, `start_cmd = ""`, `start_cmd string length must be at least 1`},
		{`{ bk_cloud_id = 0, ip = "10.0.0.1" }`, `{ bk_cloud_id = 0, ip = "fe80::1%eth0" }`, `has a zone`},
		{`{ bk_cloud_id = 0, ip = "10.0.0.1" }`, `{ bk_cloud_id = 0, ip = "10.0.0.1" }, { bk_cloud_id = 0, ip = "::ffff:10.0.0.1" }`, `the same\s+host`},
		{`{ bk_cloud_id = 0, ip = "10.0.0.1" }`, `{ bk_cloud_id = -1, ip = "10.0.0.1" }`, `bk_cloud_id must be 0 or more`},
		{`{ bk_cloud_id = 0, ip = "10.0.0.1" }`, `{ bk_cloud_id = 0, ip = "10.0.0" }`, `is not an IPv4 or IPv6 address`},
		{`timeouts               = { create = "5s" }`, `timeouts = { create = "-5m" }`, `must be a positive duration`},
	} {
		cases = append(cases, acctest.PlanError{Config: acctest.Edited(t, base, tc.from, tc.to), Want: tc.want})
	}
	e.ExpectPlanErrors(t, cases)
}

// Issue 7 item 8: a result key whose path ends in ":0" and whose IPv6 address
// could also take that ":0" ("/data/nginx/bin/nginx:0" + ":0:" + "2001:db8::")
// is matched against the key the request built, so refresh keeps the IP and
// the plan stays empty. Splitting the key from the right read it as process
// "nginx" on "0:2001:db8::" and dropped the IP as drift.
func TestAccJobManagedProcess_ambiguousResultKey(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := strings.Replace(e.JobConfig("./nginx", "0:2001:db8::", "0:10.0.0.1"), `"nginx"`, `"nginx:0"`, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check:  resource.TestCheckResourceAttr("gse_job_managed_process.test", "ip_list.#", "2"),
			},
			{
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            resource.TestCheckResourceAttr("gse_job_managed_process.test", "ip_list.#", "2"),
			},
		},
	})
}
