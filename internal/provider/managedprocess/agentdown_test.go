package managedprocess_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// A host whose GSE agent is down (the simulator's SetAgentDown, for both
// doors) fails a create with advice to repair the agent: through ESB from
// the operation's 117, through the gateway from list_agent_state before any
// operation. With the agent back, the next apply finishes.
func TestAccManagedProcess_agentDown(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		e.Sim.SetAgentDown(0, "10.0.0.2", true)
		cfg := e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "0:10.0.0.2"}, Extra: "running = true"})
		want := acctest.Wrapped("operate_proc_v2 op_type 0 (start)", "failed on 1 of 2 hosts", "10.0.0.2 (bk_cloud_id 0): GSE code 117",
			"The GSE agent is abnormal or offline on these hosts: repair it (for example with bk-nodeman) and apply again")
		if e.Gateway {
			want = acctest.Wrapped("list_agent_state: the GSE agent is not running on agent_id 0:10.0.0.2 (status_code 3, damaged)",
				"Repair the agents (for example with bk-nodeman)")
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: cfg, ExpectError: want},
				{
					PreConfig: func() { e.Sim.SetAgentDown(0, "10.0.0.2", false) },
					Config:    cfg,
					Check:     resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.1", acctest.HostedAndRunning), e.SimCheck(0, "10.0.0.2", acctest.HostedAndRunning)),
				},
			},
		})
	})
}
