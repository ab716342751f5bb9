package provider_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// The documentation's examples plan cleanly against the simulator: every
// resource and data-source example, together (they refer to each other).
func TestAccExamplesPlan(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	files, err := filepath.Glob("../../examples/*/*/*.tf")
	if err != nil || len(files) < 5 {
		t.Fatalf("examples: %v %v", files, err)
	}
	var cfg strings.Builder
	cfg.WriteString(e.ProviderBlock())
	for _, f := range files {
		if strings.HasSuffix(f, "import-by-string-id.tf") || strings.HasSuffix(f, "import-by-identity.tf") {
			continue // import blocks need existing objects
		}
		if strings.HasPrefix(f, "../../examples/actions/") {
			continue // Terraform 1.14+: TestAccExamplesTerraform114
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Write(b)
		cfg.WriteString("\n")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		Steps: []resource.TestStep{{
			Config: cfg.String(), PlanOnly: true, ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("gse_managed_process.agent", plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction("gse_job_managed_process.nginx", plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction("gse_process_operation.reload_agent", plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction("gse_process_operation.restart_beat", plancheck.ResourceActionCreate),
			}},
		}},
	})
}

// The gateway example of the provider page plans against the gateway simulator.
func TestAccExamplesGatewayPlan(t *testing.T) {
	e := acctest.NewGatewayEnv(t, nil)
	b, err := os.ReadFile("../../examples/provider/gateway.tf")
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.NewReplacer("https://bkapi.example.com/api/bk-gse/prod", e.URL, "https://paas.example.com", e.URL).Replace(string(b))
	t.Setenv("BK_ACCESS_TOKEN", acctest.Token) // as the example says
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		Steps: []resource.TestStep{{
			Config: cfg, PlanOnly: true, ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("gse_managed_process.agent", plancheck.ResourceActionCreate),
			}},
		}},
	})
}
