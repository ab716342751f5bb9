package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// restartOnUpdate is the process of e.config with labels, restarted by the
// action after each update.
func (e *testEnv) restartOnUpdate(label string) string {
	return e.config(proc{hosts: []string{"0:10.0.0.1", "0:10.0.0.2"}, labels: fmt.Sprintf(`{ rev = %q }`, label), extra: `
  running = true
  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.gse_process_operation.restart]
    }
  }`}) + `
action "gse_process_operation" "restart" {
  config {
    op = "restart"
    gse = {
      meta  = { namespace = "gse", name = "proc-test" }
      hosts = [{ ip = "10.0.0.1", bk_cloud_id = 0 }, { ip = "10.0.0.2", bk_cloud_id = 0 }]
      spec  = gse_managed_process.test.spec
    }
  }
}
`
}

// An action_trigger on gse_managed_process restarts it after each update,
// not on create; a host that fails the restart fails the apply, named.
func TestAccProcessOperationAction_afterUpdate(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   day2Versions,
		ProtoV6ProviderFactories: e.factories(),
		CheckDestroy:             e.checkSimEmpty,
		Steps: []resource.TestStep{
			{
				Config: e.restartOnUpdate("1"),
				Check:  resource.ComposeAggregateTestCheckFunc(e.simCheck(0, "10.0.0.1", restarts(0)), e.simCheck(0, "10.0.0.2", restarts(0))),
			},
			{
				Config: e.restartOnUpdate("2"),
				Check:  resource.ComposeAggregateTestCheckFunc(e.simCheck(0, "10.0.0.1", restarts(1)), e.simCheck(0, "10.0.0.2", restarts(1))),
			},
			{
				PreConfig: func() {
					e.sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: "10.0.0.2", Ops: []int{int(gse.OpRestart)}, Code: gse.HostAgentAbnormal, Message: "agent offline", Times: 1})
				},
				Config:      e.restartOnUpdate("3"),
				ExpectError: regexp.MustCompile(`(?s)Could not run restart on process gse/proc-test.*10\.0\.0\.2 \(bk_cloud_id 0\): GSE code 117: agent offline`),
			},
			{
				Config: e.restartOnUpdate("3"),
				Check:  resource.ComposeAggregateTestCheckFunc(e.simCheck(0, "10.0.0.1", restarts(2)), e.simCheck(0, "10.0.0.2", restarts(1))),
			},
		},
	})
}
