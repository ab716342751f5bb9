package processoperation_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// gse_process_operation addresses hosts by agent id through the gateway, and
// fails at once, naming it, on a host whose agent is down.
func TestAccProcessOperationGateway_agentID(t *testing.T) {
	t.Parallel()
	e := acctest.NewGatewayEnv(t, nil)
	e.Sim.Gateway().AddAgent(acctest.AgentA, 0, "10.0.0.5")
	cfg := func(trigger string) string {
		return e.Config(acctest.Proc{Hosts: []string{"agent:" + acctest.AgentA, "0:10.0.0.1"}, Extra: "running = true"}) + fmt.Sprintf(`
resource "gse_process_operation" "test" {
  op       = "restart"
  triggers = { config = %q }
  gse = {
    meta  = { namespace = "gse", name = gse_managed_process.test.meta.name }
    hosts = [for h in gse_managed_process.test.hosts : { ip = h.ip, bk_cloud_id = h.bk_cloud_id, agent_id = h.agent_id }]
    spec  = gse_managed_process.test.spec
  }
}
`, trigger)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				Config: cfg("v1"),
				Check: resource.ComposeAggregateTestCheckFunc(
					e.SimCheck(0, "10.0.0.5", acctest.Restarts(1)), e.SimCheck(0, "10.0.0.1", acctest.Restarts(1)),
					resource.TestCheckResourceAttr(opAddr, "results.#", "2"),
					resource.TestCheckResourceAttr(opAddr, "results.0.agent_id", acctest.AgentA), // ordered by cloud id, then ip: "" first
					resource.TestCheckNoResourceAttr(opAddr, "results.1.agent_id"),
					resource.TestCheckResourceAttr(opAddr, "results.1.ip", "10.0.0.1"),
				),
			},
			{
				PreConfig:   func() { e.Sim.Gateway().SetAgentState(acctest.AgentA, -1) },
				Config:      cfg("v2"),
				ExpectError: regexp.MustCompile(`the GSE agent is not running on agent_id\s+` + acctest.AgentA + `\s+\(status_code -1,\s+unknown\)`),
			},
			{
				PreConfig: func() { e.Sim.Gateway().SetAgentState(acctest.AgentA, 2) },
				Config:    cfg("v2"),
				Check:     resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.5", acctest.Restarts(2)), e.SimCheck(0, "10.0.0.1", acctest.Restarts(2))),
			},
		},
	})
}
