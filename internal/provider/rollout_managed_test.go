package provider_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// fleet is n hosts 0:10.0.0.1 .. 0:10.0.0.n, listed in reverse so that the
// rollout's own order (by cloud id, then IP as an address) shows.
func fleet(n int) []string {
	var out []string
	for i := n; i >= 1; i-- {
		out = append(out, fmt.Sprintf("0:10.0.0.%d", i))
	}
	return out
}

// ipRange is 10.0.0.from .. 10.0.0.to, in order.
func ipRange(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("10.0.0.%d", i))
	}
	return out
}

// opBatches lists, task by task from the since-th on, the IPs of each task's
// targets with op_type op. It fails when a task carrying op was submitted
// while another task was still open: batches must never overlap.
func opBatches(sim *simulator.Server, since, op int) ([][]string, error) {
	var out [][]string
	for _, task := range sim.Tasks()[since:] {
		var ips []string
		for _, tg := range task.Targets {
			if tg.Op == op {
				ips = append(ips, tg.IP)
			}
		}
		if len(ips) == 0 {
			continue
		}
		if task.Open != 0 {
			return nil, fmt.Errorf("task %s (%v) was submitted while %d other tasks were open", task.TaskID, ips, task.Open)
		}
		out = append(out, ips)
	}
	return out, nil
}

// expectBatches checks the op tasks since mark (read when the check runs, from *mark) against want.
func expectBatches(sim *simulator.Server, mark *int, op int, want ...[]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := opBatches(sim, *mark, op)
		if err != nil {
			return err
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			return fmt.Errorf("op_type %d batches = %v, want %v", op, got, want)
		}
		return nil
	}
}

// markTasks returns a PreConfig that records how many tasks the simulator has seen.
func markTasks(sim *simulator.Server, mark *int) func() {
	return func() { *mark = len(sim.Tasks()) }
}

func rolledOut(rollout, rev string) string {
	return fmt.Sprintf("running = true\n  restart_triggers = { rev = %q }\n  rollout = %s", rev, rollout)
}

// A restart trigger on 20 hosts with batch_size = 5 runs 4 tasks, one after
// the other, in the order of the hosts' IPs. One host failing in batch 2 with
// max_fail_percentage = 0 stops the rollout after batch 2: the error names it
// and the 10 untouched hosts, and the next apply restarts only those 11.
func TestAccRollout_restartTrigger(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	hosts := fleet(20)
	const ro = `{ batch_size = 5, max_fail_percentage = 0 }`
	cfg := func(rev string) string { return e.config(proc{hosts: hosts, extra: rolledOut(ro, rev)}) }
	var mark int
	restarted := func(n int, ips ...string) resource.TestCheckFunc {
		var checks []resource.TestCheckFunc
		for _, ip := range ips {
			checks = append(checks, e.simCheck(0, ip, restarts(n)))
		}
		return resource.ComposeAggregateTestCheckFunc(checks...)
	}
	restart := int(gse.OpRestart)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		CheckDestroy:             e.checkSimEmpty,
		Steps: []resource.TestStep{
			{
				PreConfig: markTasks(e.sim, &mark),
				Config:    cfg("1"),
				// Create is rolled out too: register and start, 5 hosts at a time.
				Check: expectBatches(e.sim, &mark, int(gse.OpStart), ipRange(1, 5), ipRange(6, 10), ipRange(11, 15), ipRange(16, 20)),
			},
			{
				PreConfig: markTasks(e.sim, &mark),
				Config:    cfg("2"),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectBatches(e.sim, &mark, restart, ipRange(1, 5), ipRange(6, 10), ipRange(11, 15), ipRange(16, 20)),
					restarted(1, ipRange(1, 20)...),
				),
			},
			{
				PreConfig: func() {
					markTasks(e.sim, &mark)()
					e.sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: "10.0.0.7", Ops: []int{restart}, Code: gse.HostAgentAbnormal, Message: "agent offline", Times: 1})
				},
				Config: cfg("3"),
				ExpectError: wrapped(append(append([]string{
					"rolling restart of gse/proc-test stopped after batch 2 of 4: 1 of 20 hosts failed, more than max_fail_percentage = 0 allows.",
					"Done on 9 of 20 hosts.", "Failed (1 host):", "- 10.0.0.7 (bk_cloud_id 0): GSE code 117: agent offline",
					"Untouched (10 hosts, not reached by the rollout):"}, untouched(ipRange(11, 20))...),
					"GSE agent is abnormal or offline")...),
			},
			{
				// Only batches 1 and 2 ran, and 10.0.0.7 failed.
				Config:   cfg("3"),
				PlanOnly: true, ExpectNonEmptyPlan: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					expectBatches(e.sim, &mark, restart, ipRange(1, 5), ipRange(6, 10)),
					restarted(2, "10.0.0.1", "10.0.0.6", "10.0.0.10"), restarted(1, "10.0.0.7", "10.0.0.11", "10.0.0.20"),
				),
			},
			{
				// The next apply finishes the trigger: the failed host and the untouched ones, in batches of 5.
				PreConfig: markTasks(e.sim, &mark),
				Config:    cfg("3"),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectBatches(e.sim, &mark, restart, append([]string{"10.0.0.7"}, ipRange(11, 14)...), ipRange(15, 19), ipRange(20, 20)),
					restarted(2, ipRange(1, 20)...),
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
	e := newTestEnv(t)
	// The agent answers the start on 10.0.0.3 with success but never starts it.
	e.sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: "10.0.0.3", Ops: []int{int(gse.OpStart)}, Code: gse.HostOK, Message: "success", Times: simulator.Forever})
	var mark int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		CheckDestroy:             e.checkSimEmpty,
		Steps: []resource.TestStep{
			{
				PreConfig: markTasks(e.sim, &mark),
				Config: e.config(proc{hosts: fleet(6), extra: `running = true
  rollout  = { batch_size = 2, wait_running = true, pause = "1ms" }
  timeouts = { create = "5s" } # room for batches 1 and 2 on a loaded machine`}),
				ExpectError: wrapped("rolling create of gse/proc-test stopped after batch 2 of 3", "Failed (1 host):",
					"- 10.0.0.3 (bk_cloud_id 0): not running before the timeout (wait_running): GSE reports status stopped (2), pid -1",
					"Untouched (2 hosts", "- 10.0.0.5 (bk_cloud_id 0)", "- 10.0.0.6 (bk_cloud_id 0)"),
			},
			{
				Config:   e.config(proc{hosts: fleet(6), extra: `running = true`}),
				PlanOnly: true, ExpectNonEmptyPlan: true, // tainted
				Check: resource.ComposeAggregateTestCheckFunc(
					expectBatches(e.sim, &mark, int(gse.OpStart), ipRange(1, 2), ipRange(3, 4)),
					e.simCheck(0, "10.0.0.4", hostedAndRunning), e.simAbsent(0, "10.0.0.5"),
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
	e := newTestEnv(t)
	const ro = "\n  rollout = { batch_size = \"25%\", wait_running = true }"
	hosts := fleet(8)
	swapped := append(fleet(10)[:2], fleet(6)...) // 10.0.0.7 and .8 replaced by .9 and .10
	var mark, updates int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		CheckDestroy:             e.checkSimEmpty,
		Steps: []resource.TestStep{
			{
				PreConfig: markTasks(e.sim, &mark),
				Config:    e.config(proc{hosts: hosts, extra: "running = true" + ro}),
				Check:     expectBatches(e.sim, &mark, int(gse.OpStart), ipRange(1, 2), ipRange(3, 4), ipRange(5, 6), ipRange(7, 8)),
			},
			{
				PreConfig: func() { markTasks(e.sim, &mark)(); updates = e.sim.Calls("update_proc_info") },
				Config:    e.config(proc{hosts: hosts, setupPath: "/data/gsetest2", extra: "running = true" + ro}),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectBatches(e.sim, &mark, int(gse.OpHost), ipRange(1, 2), ipRange(3, 4), ipRange(5, 6), ipRange(7, 8)),
					func(*terraform.State) error {
						if n := e.sim.Calls("update_proc_info") - updates; n != 4 {
							return fmt.Errorf("update_proc_info called %d times, want 4 (one per batch)", n)
						}
						return nil
					},
				),
			},
			{
				PreConfig: markTasks(e.sim, &mark),
				Config:    e.config(proc{hosts: swapped, setupPath: "/data/gsetest2", extra: "running = true" + ro}),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectBatches(e.sim, &mark, int(gse.OpStop), []string{"10.0.0.7"}, []string{"10.0.0.8"}),
					expectBatches(e.sim, &mark, int(gse.OpStart), []string{"10.0.0.9"}, []string{"10.0.0.10"}),
					e.simAbsent(0, "10.0.0.8"), e.simCheck(0, "10.0.0.10", hostedAndRunning),
				),
			},
			{
				PreConfig: markTasks(e.sim, &mark),
				Config:    e.config(proc{hosts: swapped, setupPath: "/data/gsetest2", extra: "managed = false\n  running = false" + ro}),
				Check: expectBatches(e.sim, &mark, int(gse.OpStop),
					ipRange(1, 2), ipRange(3, 4), ipRange(5, 6), []string{"10.0.0.9", "10.0.0.10"}),
			},
		},
	})
}

func TestAccRollout_validation(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	cfg := func(ro string) string { return e.config(proc{hosts: fleet(4), extra: "rollout = " + ro}) }
	e.expectPlanErrors(t, []planError{
		{cfg(`{ batch_size = 5 }`), ws(`rollout.batch_size must be a host count from 1 to 4 (the number of hosts) or a percentage from 1% to 100%, got "5"`)},
		{cfg(`{ batch_size = "0%" }`), ws(`rollout.batch_size must be a percentage from 1% to 100%, got "0%"`)},
		{cfg(`{ batch_size = "101%" }`), ws(`rollout.batch_size must be a percentage from 1% to 100%, got "101%"`)},
		{cfg(`{ batch_size = 0 }`), ws(`rollout.batch_size must be a host count of at least 1`)},
		{cfg(`{ batch_size = "many" }`), ws(`rollout.batch_size must be a host count such as 5 or a percentage such as "25%"`)},
		{cfg(`{ max_fail_percentage = 101 }`), ws(`rollout.max_fail_percentage must be 0 to 100, got 101.`)},
		{cfg(`{ pause = "-1s" }`), ws(`rollout.pause must be a duration of 0s or more`)},
		{cfg(`{ pause = "soon" }`), ws(`rollout.pause must be a duration of 0s or more, such as "30s" or "2m", got "soon".`)},
	})
}

// ws is s as a pattern that matches across Terraform's line breaks.
func ws(s string) string { return strings.ReplaceAll(regexp.QuoteMeta(s), " ", `\s+`) }

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
	e := newTestEnv(t)
	cfg := func(rev string) string {
		return e.config(proc{hosts: fleet(3), extra: fmt.Sprintf("running = true\n  restart_triggers = { rev = %q }", rev)})
	}
	restart := int(gse.OpRestart)
	var mark int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		CheckDestroy:             e.checkSimEmpty,
		Steps: []resource.TestStep{
			{Config: cfg("1")},
			{
				PreConfig: func() {
					markTasks(e.sim, &mark)()
					e.sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: "10.0.0.2", Ops: []int{restart}, Code: gse.HostAgentAbnormal, Message: "agent offline", Times: 1})
				},
				Config:      cfg("2"),
				ExpectError: wrapped("operate_proc_v2 op_type 7 (restart) of gse/proc-test", "failed on 1 of 3 hosts:", "- 10.0.0.2 (bk_cloud_id 0): GSE code 117: agent offline"),
			},
			{
				PreConfig: markTasks(e.sim, &mark),
				Config:    cfg("2"),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectBatches(e.sim, &mark, restart, []string{"10.0.0.2"}),
					e.simCheck(0, "10.0.0.1", restarts(1)), e.simCheck(0, "10.0.0.2", restarts(1)), e.simCheck(0, "10.0.0.3", restarts(1)),
				),
			},
			{
				// A new value reaches every host again.
				PreConfig: markTasks(e.sim, &mark),
				Config:    cfg("3"),
				Check:     expectBatches(e.sim, &mark, restart, []string{"10.0.0.3", "10.0.0.2", "10.0.0.1"}), // one task, hosts as configured
			},
			{
				// Setting rollout alone changes nothing remotely.
				PreConfig: markTasks(e.sim, &mark),
				Config:    strings.Replace(cfg("3"), "running = true", "running = true\n  rollout = { batch_size = 1 }", 1),
				Check: func(*terraform.State) error {
					if n := len(e.sim.Tasks()) - mark; n != 0 {
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
	e := newTestEnv(t)
	a := e.config(proc{hosts: fleet(4), extra: `running = true
  rollout = { batch_size = 2 }`})
	b := strings.NewReplacer(`"gse_managed_process" "test"`, `"gse_managed_process" "b"`, "proc-test", "proc-b").Replace(strings.TrimPrefix(a, e.providerBlock()))
	perProcess := func(*terraform.State) error {
		byProc, shared := map[string][][]string{}, 0
		for _, task := range e.sim.Tasks() {
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
			if want := [][]string{ipRange(1, 2), ipRange(3, 4)}; !slices.EqualFunc(byProc[p], want, slices.Equal) {
				return fmt.Errorf("%s: start batches %v, want %v", p, byProc[p], want)
			}
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		CheckDestroy:             e.checkSimEmpty,
		Steps:                    []resource.TestStep{{Config: a + b, Check: perProcess}},
	})
}

// Each batch is logged at INFO: batch i/n, its hosts and its result.
func TestAccRollout_logsBatches(t *testing.T) {
	e := newTestEnv(t)
	dir := t.TempDir()
	t.Setenv("TF_LOG", "INFO")
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(dir, "%s.log"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		CheckDestroy:             e.checkSimEmpty,
		Steps:                    []resource.TestStep{{Config: e.config(proc{hosts: fleet(4), extra: "running = true\n  rollout = { batch_size = 2 }"})}},
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
