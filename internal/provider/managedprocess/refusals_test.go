package managedprocess_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// ESB answers 1306201 whenever a request to GSE fails (a restart, a read
// past its 30 s, a refused connection): the apply reads through them while
// it polls the task and reads the status back, and nothing is left pending.
func TestAccManagedProcess_survivesESBBackendFailures(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	e.Sim.AddFault(
		simulator.Fault{API: "get_proc_operate_result_v2", Code: gse.CodeESBBackendFailed, Times: 3},
		simulator.Fault{API: "get_proc_status_v2", Code: gse.CodeESBBackendFailed, Times: 2},
	)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{{
			Config:           countConfig(e, 3, "", acctest.Proc{Hosts: []string{"0:10.0.0.1", "0:10.0.0.2"}, Extra: "running = true"}),
			Check:            checkAllRunning(e, 6),
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		}},
	})
}

// What the gateway refuses in front of GSE reaches the user as what it is,
// with the ids the gateway logged, and nothing is sent again item by item:
// a wrong secret names the credential, a foreign tenant tenant_id.
func TestAccManagedProcessGateway_refusedInFront(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		from, to string // the provider block's line, and what it becomes
		want     string
	}{
		"wrong secret": {fmt.Sprintf("app_secret = %q", acctest.AppSecret), `app_secret = "wrong-secret"`,
			`code 1640001 INVALID_ARGS: Parameters error [reason="bk_app_code or bk_app_secret is incorrect"] (the bk_app_code/bk_app_secret with bk_username credentials sent were refused) (request id`},
		"foreign tenant": {fmt.Sprintf("tenant_id   = %q", acctest.Tenant), `tenant_id   = "other-tenant"`,
			`code 1640302 CROSS_TENANT_FORBIDDEN: Cross tenant forbidden [reason="Cross-tenant calls are not allowed: gateway belongs to tenant tenant-acc, header tenant_id is other-tenant. [GH]"]`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := acctest.NewGatewayEnv(t, nil)
			cfg := acctest.Edited(t, countConfig(e, 3, "", acctest.Proc{Hosts: []string{"0:10.0.0.1"}, Extra: "running = true"}), tc.from, tc.to)
			advice := map[string]string{"wrong secret": "check app_code and app_secret (BK_APP_CODE, BK_APP_SECRET)", "foreign tenant": "set tenant_id (BK_TENANT_ID)"}[name]
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: e.Factories(),
				CheckDestroy:             e.CheckSimEmpty,
				Steps: []resource.TestStep{{
					Config:      cfg,
					ExpectError: regexp.MustCompile(`(?s)` + acctest.WrappedText(tc.want) + `.*gateway\s+request\s+id\s+[0-9a-f]{8}-[0-9a-f-]{27}.*` + acctest.WrappedText(advice)),
				}},
			})
			for _, api := range []string{"operate_proc_v2", "operate_proc_multi"} {
				if n := e.Sim.Calls(api); n != 0 {
					t.Errorf("%s sent %d times after the gateway refused the first call", api, n)
				}
			}
		})
	}
}

// A gateway without operate_proc_multi answers 1640401 API_NOT_FOUND: the
// apply goes on with operate_proc_v2 for every process, asking once.
func TestAccManagedProcessGateway_withoutOperateProcMulti(t *testing.T) {
	t.Parallel()
	e := acctest.NewGatewayEnv(t, nil)
	e.Sim.RemoveAPIs("operate_proc_multi")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{{
			Config: countConfig(e, 4, "", acctest.Proc{Hosts: []string{"0:10.0.0.1"}, Extra: "running = true"}),
			Check: func(*terraform.State) error {
				if n := e.Sim.Calls("operate_proc_multi"); n > 1 {
					return fmt.Errorf("operate_proc_multi sent %d times: the fallback did not latch", n)
				}
				if n := e.Sim.Calls("operate_proc_v2"); n < 4 {
					return fmt.Errorf("operate_proc_v2 sent %d times, want one per process at least", n)
				}
				return checkAllRunning(e, 4)(nil)
			},
		}},
	})
}
