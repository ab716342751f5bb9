package managedprocess_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

func rolledOut(rollout, rev string) string {
	return fmt.Sprintf("running = true\n  restart_triggers = { rev = %q }\n  rollout = %s", rev, rollout)
}

// A restart trigger on 20 hosts with batch_size = 5 runs 4 tasks, one after
// the other, in the order of the hosts' IPs. One host failing in batch 2 with
// max_fail_percentage = 0 stops the rollout after batch 2: the error names it
// and the 10 untouched hosts, and the next apply restarts only those 11.
func TestAccRollout_restartTrigger(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	hosts := acctest.Fleet(20)
	const ro = `{ batch_size = 5, max_fail_percentage = 0 }`
	cfg := func(rev string) string { return e.Config(acctest.Proc{Hosts: hosts, Extra: rolledOut(ro, rev)}) }
	var mark int
	restarted := func(n int, ips ...string) resource.TestCheckFunc {
		var checks []resource.TestCheckFunc
		for _, ip := range ips {
			checks = append(checks, e.SimCheck(0, ip, acctest.Restarts(n)))
		}
		return resource.ComposeAggregateTestCheckFunc(checks...)
	}
	restart := int(gse.OpRestart)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config:    cfg("1"),
				// Create is rolled out too: register and start, 5 hosts at a time.
				Check: acctest.ExpectBatches(e.Sim, &mark, int(gse.OpStart), acctest.IPRange(1, 5), acctest.IPRange(6, 10), acctest.IPRange(11, 15), acctest.IPRange(16, 20)),
			},
			{
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config:    cfg("2"),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.ExpectBatches(e.Sim, &mark, restart, acctest.IPRange(1, 5), acctest.IPRange(6, 10), acctest.IPRange(11, 15), acctest.IPRange(16, 20)),
					restarted(1, acctest.IPRange(1, 20)...),
				),
			},
			{
				PreConfig: func() {
					acctest.MarkTasks(e.Sim, &mark)()
					e.Sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: "10.0.0.7", Ops: []int{restart}, Code: gse.HostAgentAbnormal, Message: "agent offline", Times: 1})
				},
				Config: cfg("3"),
				ExpectError: acctest.Wrapped(append(append([]string{
					"rolling restart of gse/proc-test stopped after batch 2 of 4: 1 of 20 hosts failed, more than max_fail_percentage = 0 allows.",
					"Done on 9 of 20 hosts.", "Failed (1 host):", "- 10.0.0.7 (bk_cloud_id 0): GSE code 117: agent offline",
					"Untouched (10 hosts, not reached by the rollout):"}, untouched(acctest.IPRange(11, 20))...),
					"GSE agent is abnormal or offline")...),
			},
			{
				// Only batches 1 and 2 ran, and 10.0.0.7 failed.
				Config:   cfg("3"),
				PlanOnly: true, ExpectNonEmptyPlan: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.ExpectBatches(e.Sim, &mark, restart, acctest.IPRange(1, 5), acctest.IPRange(6, 10)),
					restarted(2, "10.0.0.1", "10.0.0.6", "10.0.0.10"), restarted(1, "10.0.0.7", "10.0.0.11", "10.0.0.20"),
				),
			},
			{
				// The next apply finishes the trigger: the failed host and the untouched ones, in batches of 5.
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config:    cfg("3"),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.ExpectBatches(e.Sim, &mark, restart, append([]string{"10.0.0.7"}, acctest.IPRange(11, 14)...), acctest.IPRange(15, 19), acctest.IPRange(20, 20)),
					restarted(2, acctest.IPRange(1, 20)...),
				),
			},
			{Config: cfg("3"), PlanOnly: true},
		},
	})
}

// wait_running: a batch whose host never runs after the start fails, naming
// the host and what GSE reported, and no later batch starts.
func TestAccRollout_waitRunning(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	// The agent answers the start on 10.0.0.3 with success but never starts it.
	e.Sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: "10.0.0.3", Ops: []int{int(gse.OpStart)}, Code: gse.HostOK, Message: "success", Times: simulator.Forever})
	var mark int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config: e.Config(acctest.Proc{Hosts: acctest.Fleet(6), Extra: `running = true
  rollout  = { batch_size = 2, wait_running = true, pause = "1ms" }
  timeouts = { create = "5s" } # room for batches 1 and 2 on a loaded machine`}),
				ExpectError: acctest.Wrapped("rolling create of gse/proc-test stopped after batch 2 of 3", "Failed (1 host):",
					"- 10.0.0.3 (bk_cloud_id 0): not running before the timeout (wait_running): GSE reports status stopped (2), pid -1",
					"Untouched (2 hosts", "- 10.0.0.5 (bk_cloud_id 0)", "- 10.0.0.6 (bk_cloud_id 0)"),
			},
			{
				Config:   e.Config(acctest.Proc{Hosts: acctest.Fleet(6), Extra: `running = true`}),
				PlanOnly: true, ExpectNonEmptyPlan: true, // tainted
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.ExpectBatches(e.Sim, &mark, int(gse.OpStart), acctest.IPRange(1, 2), acctest.IPRange(3, 4)),
					e.SimCheck(0, "10.0.0.4", acctest.HostedAndRunning), e.SimAbsent(0, "10.0.0.5"),
				),
			},
		},
	})
}

// "25%" of 8 hosts is batches of 2. Every other disruptive step of an
// update is rolled out too: a spec change (update_proc_info, then hosting),
// removed hosts (stopped), added hosts (started), a running flip; "25%" is
// of each step's hosts.
func TestAccRollout_percentAndSteps(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	const ro = "\n  rollout = { batch_size = \"25%\", wait_running = true }"
	hosts := acctest.Fleet(8)
	swapped := append(acctest.Fleet(10)[:2], acctest.Fleet(6)...) // 10.0.0.7 and .8 replaced by .9 and .10
	var mark, updates int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config:    e.Config(acctest.Proc{Hosts: hosts, Extra: "running = true" + ro}),
				Check:     acctest.ExpectBatches(e.Sim, &mark, int(gse.OpStart), acctest.IPRange(1, 2), acctest.IPRange(3, 4), acctest.IPRange(5, 6), acctest.IPRange(7, 8)),
			},
			{
				PreConfig: func() { acctest.MarkTasks(e.Sim, &mark)(); updates = e.Sim.Calls("update_proc_info") },
				Config:    e.Config(acctest.Proc{Hosts: hosts, SetupPath: "/data/gsetest2", Extra: "running = true" + ro}),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.ExpectBatches(e.Sim, &mark, int(gse.OpHost), acctest.IPRange(1, 2), acctest.IPRange(3, 4), acctest.IPRange(5, 6), acctest.IPRange(7, 8)),
					func(*terraform.State) error {
						if n := e.Sim.Calls("update_proc_info") - updates; n != 4 {
							return fmt.Errorf("update_proc_info called %d times, want 4 (one per batch)", n)
						}
						return nil
					},
				),
			},
			{
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config:    e.Config(acctest.Proc{Hosts: swapped, SetupPath: "/data/gsetest2", Extra: "running = true" + ro}),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.ExpectBatches(e.Sim, &mark, int(gse.OpStop), []string{"10.0.0.7"}, []string{"10.0.0.8"}),
					acctest.ExpectBatches(e.Sim, &mark, int(gse.OpStart), []string{"10.0.0.9"}, []string{"10.0.0.10"}),
					e.SimAbsent(0, "10.0.0.8"), e.SimCheck(0, "10.0.0.10", acctest.HostedAndRunning),
				),
			},
			{
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config:    e.Config(acctest.Proc{Hosts: swapped, SetupPath: "/data/gsetest2", Extra: "managed = false\n  running = false" + ro}),
				Check: acctest.ExpectBatches(e.Sim, &mark, int(gse.OpStop),
					acctest.IPRange(1, 2), acctest.IPRange(3, 4), acctest.IPRange(5, 6), []string{"10.0.0.9", "10.0.0.10"}),
			},
		},
	})
}

func TestAccRollout_validation(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := func(ro string) string {
		return e.Config(acctest.Proc{Hosts: acctest.Fleet(4), Extra: "rollout = " + ro})
	}
	e.ExpectPlanErrors(t, []acctest.PlanError{
		{Config: cfg(`{ batch_size = 5 }`), Want: acctest.WrappedText(`rollout.batch_size must be a host count from 1 to 4 (the number of hosts) or a percentage from 1% to 100%, got "5"`)},
		{Config: cfg(`{ batch_size = "0%" }`), Want: acctest.WrappedText(`rollout.batch_size must be a percentage from 1% to 100%, got "0%"`)},
		{Config: cfg(`{ batch_size = "101%" }`), Want: acctest.WrappedText(`rollout.batch_size must be a percentage from 1% to 100%, got "101%"`)},
		{Config: cfg(`{ batch_size = 0 }`), Want: acctest.WrappedText(`rollout.batch_size must be a host count of at least 1`)},
		{Config: cfg(`{ batch_size = "many" }`), Want: acctest.WrappedText(`rollout.batch_size must be a host count such as 5 or a percentage such as "25%"`)},
		{Config: cfg(`{ max_fail_percentage = 101 }`), Want: acctest.WrappedText(`rollout.max_fail_percentage must be 0 to 100, got 101.`)},
		{Config: cfg(`{ pause = "-1s" }`), Want: acctest.WrappedText(`rollout.pause must be a duration of 0s or more`)},
		{Config: cfg(`{ pause = "soon" }`), Want: acctest.WrappedText(`rollout.pause must be a duration of 0s or more, such as "30s" or "2m", got "soon".`)},
	})
}

// untouched is how the error lists untouched hosts of cloud 0.
func untouched(ips []string) []string {
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = "- " + ip + " (bk_cloud_id 0)"
	}
	return out
}

// Without rollout a trigger still goes to every host at once, as before; a
// restart that failed on one host is finished by the next apply on that host alone.
func TestAccRollout_unsetTriggerResumes(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := func(rev string) string {
		return e.Config(acctest.Proc{Hosts: acctest.Fleet(3), Extra: fmt.Sprintf("running = true\n  restart_triggers = { rev = %q }", rev)})
	}
	restart := int(gse.OpRestart)
	var mark int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{Config: cfg("1")},
			{
				PreConfig: func() {
					acctest.MarkTasks(e.Sim, &mark)()
					e.Sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: "10.0.0.2", Ops: []int{restart}, Code: gse.HostAgentAbnormal, Message: "agent offline", Times: 1})
				},
				Config:      cfg("2"),
				ExpectError: acctest.Wrapped("operate_proc_v2 op_type 7 (restart) of gse/proc-test", "failed on 1 of 3 hosts:", "- 10.0.0.2 (bk_cloud_id 0): GSE code 117: agent offline"),
			},
			{
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config:    cfg("2"),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.ExpectBatches(e.Sim, &mark, restart, []string{"10.0.0.2"}),
					e.SimCheck(0, "10.0.0.1", acctest.Restarts(1)), e.SimCheck(0, "10.0.0.2", acctest.Restarts(1)), e.SimCheck(0, "10.0.0.3", acctest.Restarts(1)),
				),
			},
			{
				// A new value reaches every host again.
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config:    cfg("3"),
				Check:     acctest.ExpectBatches(e.Sim, &mark, restart, []string{"10.0.0.3", "10.0.0.2", "10.0.0.1"}), // one task, hosts as configured
			},
			{
				// Setting rollout alone changes nothing remotely.
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config:    strings.Replace(cfg("3"), "running = true", "running = true\n  rollout = { batch_size = 1 }", 1),
				Check: func(*terraform.State) error {
					if n := len(e.Sim.Tasks()) - mark; n != 0 {
						return fmt.Errorf("%d tasks for a change of rollout alone, want none", n)
					}
					return nil
				},
			},
		},
	})
}

// Two resources rolled out in the same apply: their batches may share a task
// (the client's apply-wide batching), yet each resource's batches go in
// order, one task each.
func TestAccRollout_sharedTasks(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	a := e.Config(acctest.Proc{Hosts: acctest.Fleet(4), Extra: `running = true
  rollout = { batch_size = 2 }`})
	b := strings.NewReplacer(`"gse_managed_process" "test"`, `"gse_managed_process" "b"`, "proc-test", "proc-b").Replace(strings.TrimPrefix(a, e.ProviderBlock()))
	perProcess := func(*terraform.State) error {
		byProc, shared := map[string][][]string{}, 0
		for _, task := range e.Sim.Tasks() {
			ips := map[string][]string{}
			for _, tg := range task.Targets {
				if tg.Op == int(gse.OpStart) {
					ips[tg.Process] = append(ips[tg.Process], tg.IP)
				}
			}
			for p, list := range ips {
				byProc[p] = append(byProc[p], list)
			}
			if len(ips) > 1 {
				shared++
			}
		}
		t.Logf("%d start tasks held batches of both resources", shared)
		for _, p := range []string{"gse/proc-test", "gse/proc-b"} {
			if want := [][]string{acctest.IPRange(1, 2), acctest.IPRange(3, 4)}; !slices.EqualFunc(byProc[p], want, slices.Equal) {
				return fmt.Errorf("%s: start batches %v, want %v", p, byProc[p], want)
			}
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps:                    []resource.TestStep{{Config: a + b, Check: perProcess}},
	})
}

// Each batch is logged at INFO: batch i/n, its hosts and its result.
func TestAccRollout_logsBatches(t *testing.T) {
	e := acctest.NewEnv(t)
	dir := t.TempDir()
	t.Setenv("TF_LOG", "INFO")
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(dir, "%s.log"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps:                    []resource.TestStep{{Config: e.Config(acctest.Proc{Hosts: acctest.Fleet(4), Extra: "running = true\n  rollout = { batch_size = 2 }"})}},
	})
	raw, err := os.ReadFile(filepath.Join(dir, t.Name()+".log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"[INFO]  gse: rolling create of gse/proc-test: batch 1/2 (2 hosts) ok:",
		"[INFO]  gse: rolling create of gse/proc-test: batch 2/2 (2 hosts) ok:",
		`batch=2/2`, `hosts="10.0.0.3 (bk_cloud_id 0), 10.0.0.4 (bk_cloud_id 0)"`, `result=ok`,
	} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the log lacks %q", want)
		}
	}
}
