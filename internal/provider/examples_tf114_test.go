package provider_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// readExamples joins the example files matching pattern, except import blocks.
func readExamples(t *testing.T, pattern string) string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("examples %s: %v %v", pattern, files, err)
	}
	var b strings.Builder
	for _, f := range files {
		if strings.Contains(filepath.Base(f), "import-by-") {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(raw)
		b.WriteString("\n")
	}
	return b.String()
}

// The Terraform 1.14+ examples work against the simulator: the actions plan
// with every other example, and the list example finds a process.
func TestAccExamplesTerraform114(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := e.ProviderBlock() + readExamples(t, "../../examples/*/*/*.tf")
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   acctest.TF114Versions,
		ProtoV6ProviderFactories: e.Factories(),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					e.Register(t, gse.Meta{Namespace: "gse", Name: "web-a", Labels: map[string]string{"team": "web"}}, []string{"0:10.0.0.9"}, acctest.OpPtr(gse.OpStart))
				},
				Config: cfg, PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gse_managed_process.web", plancheck.ResourceActionCreate),
				}},
			},
			{
				Query:  true,
				Config: readExamples(t, "../../examples/list-resources/*/*.tfquery.hcl"),
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("gse_managed_process.web", 1),
					querycheck.ExpectIdentity("gse_managed_process.web", map[string]knownvalue.Check{
						"namespace": knownvalue.StringExact("gse"), "name": knownvalue.StringExact("web-a"),
					}),
				},
			},
		},
	})
}
