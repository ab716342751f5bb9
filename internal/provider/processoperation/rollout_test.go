package processoperation_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// gse_process_operation with rollout: one task per batch, in host order,
// waiting for each batch to run; task_id lists the batches' tasks.
func TestAccRollout_operationGSE(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := e.Config(acctest.Proc{Hosts: acctest.Fleet(6), Extra: "running = true"}) + `
resource "gse_process_operation" "test" {
  op = "restart"
  gse = {
    meta  = { namespace = "gse", name = gse_managed_process.test.meta.name }
    hosts = [for h in gse_managed_process.test.hosts : { ip = h.ip, bk_cloud_id = h.bk_cloud_id }]
    spec  = gse_managed_process.test.spec
  }
  rollout = { batch_size = 2, wait_running = true, pause = "1ms" }
}
`
	var mark int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{{
			PreConfig: acctest.MarkTasks(e.Sim, &mark),
			Config:    cfg,
			Check: resource.ComposeAggregateTestCheckFunc(
				acctest.ExpectBatches(e.Sim, &mark, int(gse.OpRestart), acctest.IPRange(1, 2), acctest.IPRange(3, 4), acctest.IPRange(5, 6)),
				resource.TestCheckResourceAttr(opAddr, "results.#", "6"),
				resource.TestMatchResourceAttr(opAddr, "task_id", regexp.MustCompile(`^GSETASK:[^,]+,GSETASK:[^,]+,GSETASK:[^,]+$`)),
				e.SimCheck(0, "10.0.0.6", acctest.Restarts(1)),
			),
		}, {
			// A new rollout alone is an in-place update: the operation does not run again.
			PreConfig: acctest.MarkTasks(e.Sim, &mark),
			Config:    strings.Replace(cfg, `batch_size = 2`, `batch_size = 3`, 1),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(opAddr, plancheck.ResourceActionUpdate),
			}},
			Check: acctest.ExpectBatches(e.Sim, &mark, int(gse.OpRestart)),
		}},
	})
}

// jobRolloutOperation restarts nginx through JOB on 10.0.0.1-4 with rollout.
func jobRolloutOperation(e *acctest.Env, run, rollout string) string {
	return e.ProviderBlock() + fmt.Sprintf(`
resource "gse_process_operation" "test" {
  op       = "restart"
  triggers = { run = %q }
  job = {
    bk_biz_id = 2
    process_infos = [{
      setup_path = "/data/nginx/bin"
      proc_name  = "nginx"
      pid_path   = "/data/nginx/run/nginx.pid"
      ip_list    = [for i in [4, 3, 2, 1] : { bk_cloud_id = 0, ip = "10.0.0.${i}" }]
    }]
  }
  rollout = %s
}
`, run, rollout)
}

// A JOB operation rolls out by IP; a failed IP in batch 1 with
// max_fail_percentage = 0 leaves batch 2 untouched, and the error says so.
func TestAccRollout_operationJOB(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	var mark int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		Steps: []resource.TestStep{
			{
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config:    jobRolloutOperation(e, "1", `{ batch_size = "50%" }`),
				Check:     acctest.ExpectBatches(e.Sim, &mark, int(gse.OpRestart), acctest.IPRange(1, 2), acctest.IPRange(3, 4)),
			},
			{
				PreConfig: func() {
					acctest.MarkTasks(e.Sim, &mark)()
					e.Sim.AddHostFault(simulator.HostFault{API: "job/operate_process", IP: "10.0.0.2", Code: 117, Message: "agent offline", Times: 1})
				},
				Config: jobRolloutOperation(e, "2", `{ batch_size = 2, max_fail_percentage = 0 }`),
				ExpectError: acctest.Wrapped("Could not run restart on process JOB biz:2//data/nginx/bin/nginx",
					"rolling restart of JOB biz:2//data/nginx/bin/nginx stopped after batch 1 of 2: 1 of 4 hosts failed",
					"- 10.0.0.2 (bk_cloud_id 0): GSE code 117: agent offline", "Untouched (2 hosts", "- 10.0.0.3 (bk_cloud_id 0)", "- 10.0.0.4 (bk_cloud_id 0)"),
			},
			{
				Config: jobRolloutOperation(e, "2", `{ batch_size = 2, max_fail_percentage = 0 }`), PlanOnly: true, ExpectNonEmptyPlan: true,
				Check: acctest.ExpectBatches(e.Sim, &mark, int(gse.OpRestart), acctest.IPRange(1, 2)),
			},
		},
	})
	e.ExpectPlanErrors(t, []acctest.PlanError{
		{Config: jobRolloutOperation(e, "1", `{ batch_size = 5 }`), Want: acctest.WrappedText(`rollout.batch_size must be a host count from 1 to 4 (the number of hosts)`)},
	})
}

// The action reports each batch as a progress message.
func TestAccRollout_action(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	e.Register(t, gse.Meta{Namespace: "gse", Name: "web"}, []string{"0:10.0.0.1", "0:10.0.0.2", "1:10.0.0.1"}, acctest.OpPtr(gse.OpStart))
	cli := acctest.NewCLIRun(t, e, `
action "gse_process_operation" "restart" {
  config {
    op = "restart"
    gse = {
      meta  = { namespace = "gse", name = "web" }
      hosts = [{ ip = "10.0.0.1", bk_cloud_id = 1 }, { ip = "10.0.0.2", bk_cloud_id = 0 }, { ip = "10.0.0.1", bk_cloud_id = 0 }]
      spec = {
        identity       = { proc_name = "web", setup_path = "/opt/web", pid_path = "/opt/web/p.pid", user = "root" }
        control        = { start_cmd = "./start.sh", restart_cmd = "./restart.sh" }
        resource       = { cpu = 5.0, mem = 5.0 }
        monitor_policy = { auto_type = 1 }
      }
    }
    rollout = { batch_size = 2, wait_running = true }
  }
}
`)
	out, err := cli.Run("apply", "-auto-approve", "-no-color", "-invoke=action.gse_process_operation.restart")
	if err != nil {
		t.Fatalf("apply -invoke: %v\n%s", err, out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		`rolling restart of gse/web: batch 1/2 (2 hosts) ok`,
		`rolling restart of gse/web: batch 2/2 (1 host) ok`,
		`restart gse/web: done on 3 hosts (task GSETASK:`,
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	got, err := acctest.OpBatches(e.Sim, 0, int(gse.OpRestart))
	if err != nil || len(got) != 2 || strings.Join(got[0], ",") != "10.0.0.1,10.0.0.2" || strings.Join(got[1], ",") != "10.0.0.1" {
		t.Errorf("restart batches = %v (%v), want [10.0.0.1 10.0.0.2] of cloud 0, then 10.0.0.1 of cloud 1", got, err)
	}
}
