package processoperation_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// gse_process_operation on a one-shot: its restart answers 836 on every host
// and counts as done, the code kept in results.
func TestAccProcessOperation_oneShot(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{{
			Config: acctest.Edited(t, gseOperation(e, "restart", "v1"), "auto_type = 1", "auto_type = 2"),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(opAddr, "results.0.error_code", "836"),
				resource.TestCheckResourceAttr(opAddr, "results.1.error_code", "836"),
				e.SimCheck(0, "10.0.0.2", func(p simulator.Process) error {
					if p.Restarts != 1 || p.Running {
						return fmt.Errorf("want restarted once and exited, got %+v", p)
					}
					return nil
				}),
			),
		}},
	})
}
