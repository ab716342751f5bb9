package managedprocess_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// A replacement with create_before_destroy fails before anything changes,
// saying why (one registration per namespace, name and host) and what to do,
// and claims no taint: through ESB register_proc_info answers 850, through
// the gateway the provider finds the process live and sends nothing. The old
// object keeps running untouched; without create_before_destroy, -replace
// (here: a new trigger value) replaces it.
func TestAccManagedProcess_createBeforeDestroyRefused(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := func(trigger string, cbd bool) string {
			return e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "1:10.0.0.2"}, Extra: fmt.Sprintf(`running = true
  lifecycle {
    create_before_destroy = %t
    replace_triggered_by  = [terraform_data.release]
  }`, cbd)}) + fmt.Sprintf(`
resource "terraform_data" "release" {
  input = %q
}
`, trigger)
		}
		var firstPID int64
		pidOf := func(*terraform.State) (int64, error) {
			p, ok := e.GSEProc(0, "10.0.0.1")()
			if !ok {
				return 0, fmt.Errorf("the process is gone from 0:10.0.0.1")
			}
			return p.PID, nil
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{
					Config: cfg("v1", true),
					Check: func(s *terraform.State) (err error) {
						firstPID, err = pidOf(s)
						return err
					},
				},
				{
					Config: cfg("v2", true),
					ExpectError: wordsRegexp("Could not create process gse/proc-test", "one registration per namespace, name and host",
						"create_before_destroy", "terraform apply -replace=<address>", "Nothing was registered by this create"),
				},
				{
					// The old object is intact: running with the same pid, and nothing planned.
					Config:           cfg("v2", true),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
					Check: resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.1", acctest.HostedAndRunning), e.SimCheck(1, "10.0.0.2", acctest.HostedAndRunning),
						func(s *terraform.State) error {
							if pid, err := pidOf(s); err != nil || pid != firstPID {
								return fmt.Errorf("pid %d (%v), want %d: the refused create touched the process", pid, err, firstPID)
							}
							return nil
						}),
				},
				{
					// Destroy first, then create: the replacement goes through.
					Config: cfg("v3", false),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.Addr, plancheck.ResourceActionDestroyBeforeCreate),
					}},
					Check: resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.1", acctest.HostedAndRunning), e.SimCheck(1, "10.0.0.2", acctest.HostedAndRunning)),
				},
			},
		})
	})
}
