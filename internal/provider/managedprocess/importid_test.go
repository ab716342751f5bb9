package managedprocess_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// The import ID takes hosts as bk_cloud_id:ip, the spelling of
// provider::gse::agent_id; an ID naming a host without the process fails
// naming that host, not with Terraform's generic "non-existent remote object".
func TestAccManagedProcess_importIDCloudIP(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "1:10.0.0.2"}, Extra: "running = true"})
		importStep := func(id string) resource.TestStep {
			return resource.TestStep{Config: cfg, ResourceName: acctest.Addr, ImportState: true, ImportStateId: id}
		}
		verified := importStep("gse/proc-test@0:10.0.0.1,1:10.0.0.2")
		verified.ImportStateVerify = true
		verified.ImportStateVerifyIgnore = []string{"spec", "running", "restart_triggers", "reload_triggers", "timeouts"}
		ghost := importStep("gse/proc-test@0:10.0.0.1,0:10.0.0.6")
		ghost.ExpectError = regexp.MustCompile(`(?s)Process gse/proc-test not found on 1 of 2 hosts.*get_proc_status_v2.*not registered\s+on\s+0:10\.0\.0\.6\.`)
		elsewhere := importStep("monitor/ghost@0:10.0.0.1")
		elsewhere.ExpectError = regexp.MustCompile(`(?s)Process monitor/ghost not found on 1 of 1 hosts.*0:10\.0\.0\.1`)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps:                    []resource.TestStep{{Config: cfg}, verified, ghost, elsewhere},
		})
	})
}
