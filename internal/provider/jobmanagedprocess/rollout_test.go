package jobmanagedprocess_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// gse_job_managed_process with rollout: hosting goes batch by batch, on
// create (waiting for each batch to run) and on removals; a removal that
// stops midway leaves the unregistered IPs out of the state and the rest in,
// and the next apply finishes it.
func TestAccRollout_job(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := func(n int) string {
		var ips []string
		for i := n; i >= 1; i-- {
			ips = append(ips, fmt.Sprintf("0:10.0.0.%d", i))
		}
		return acctest.Edited(t, e.JobConfig("./nginx", ips...), `  timeouts               = { create = "5s" }`,
			`  timeouts               = { create = "5s" }
  rollout                = { batch_size = 2, wait_running = true, max_fail_percentage = 0 }`)
	}
	register, unregister := int(gse.OpHost), int(gse.OpUnhost) // operate_process's op_type 3 and 4
	var mark int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config:    cfg(6),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.ExpectBatches(e.Sim, &mark, register, acctest.IPRange(1, 2), acctest.IPRange(3, 4), acctest.IPRange(5, 6)),
					e.JobCheck(0, "10.0.0.6", func(p simulator.Process) error {
						if !p.Running {
							return fmt.Errorf("nginx on 10.0.0.6 is not running: %+v", p)
						}
						return nil
					}),
				),
			},
			{
				PreConfig: func() {
					acctest.MarkTasks(e.Sim, &mark)()
					e.Sim.AddHostFault(simulator.HostFault{API: "job/operate_process", IP: "10.0.0.3", Ops: []int{unregister}, Code: 117, Message: "agent offline", Times: 1})
				},
				Config: cfg(2),
				ExpectError: acctest.Wrapped("rolling unregister hosting of JOB biz:2//data/nginx/bin/nginx stopped after batch 1 of 2: 1 of 4 hosts failed",
					"- 10.0.0.3 (bk_cloud_id 0): GSE code 117: agent offline", "Untouched (2 hosts", "- 10.0.0.5 (bk_cloud_id 0)", "- 10.0.0.6 (bk_cloud_id 0)"),
			},
			{
				Config: cfg(2), PlanOnly: true, ExpectNonEmptyPlan: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.ExpectBatches(e.Sim, &mark, unregister, acctest.IPRange(3, 4)),
					resource.TestCheckResourceAttr("gse_job_managed_process.test", "ip_list.#", "5"), // 10.0.0.4 left
					e.JobCheck(0, "10.0.0.4", unhosted),
					e.JobCheck(0, "10.0.0.5", func(simulator.Process) error { return nil }),
				),
			},
			{
				PreConfig: acctest.MarkTasks(e.Sim, &mark),
				Config:    cfg(2),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.ExpectBatches(e.Sim, &mark, unregister, []string{"10.0.0.3", "10.0.0.5"}, []string{"10.0.0.6"}),
					resource.TestCheckResourceAttr("gse_job_managed_process.test", "ip_list.#", "2"),
				),
			},
		},
	})
}
