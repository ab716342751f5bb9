package provider_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// TestAccExamplesAlone: every example of the docs works as a user copies it
// into an empty directory, beside nothing but the provider's source (and the
// provider block when the example has none): it validates, and unless it is
// an import block (whose target is the resource example) it plans against
// the simulator. An example that needs a newer CLI is skipped below it.
func TestAccExamplesAlone(t *testing.T) {
	t.Parallel()
	var files []string
	err := filepath.WalkDir("../../examples", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".tf") || strings.HasSuffix(p, ".tfquery.hcl")) {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) < 15 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(strings.TrimPrefix(f, "../../examples/"), func(t *testing.T) {
			t.Parallel()
			exampleAlone(t, f)
		})
	}
}

// exampleCLI is the oldest CLI an example runs on: actions and list
// resources came with Terraform 1.14, import by identity with 1.12.
func exampleCLI(file string) string {
	switch {
	case strings.Contains(file, "/actions/"), strings.HasSuffix(file, ".tfquery.hcl"):
		return "1.14.0"
	case strings.HasSuffix(file, "import-by-identity.tf"):
		return "1.12.0"
	}
	return "1.5.0"
}

var ownsProvider = regexp.MustCompile(`(?m)^provider "gse" \{`)

func exampleAlone(t *testing.T, file string) {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	// A CMDB business for the data-source and fleet examples.
	e := acctest.NewEnvWith(t, acctest.Modes[0], func(o *simulator.Options) { o.CMDBHosts = 200 })
	cli := acctest.NewCLIRunFrom(t, e, exampleCLI(file), "")
	if strings.HasSuffix(file, ".tfquery.hcl") {
		cli.WriteFile(filepath.Base(file), text)
		cli.Must("validate", "-query", "-no-color")
		return
	}
	if !strings.Contains(text, "required_providers") {
		text = acctest.RequiredProviders + text
	}
	// What the example's provider block leaves to the environment (the
	// provider runs in this process: the CLI's environment never reaches it).
	ownsGateway := strings.Contains(text, "gateway_url")
	if loc := ownsProvider.FindStringIndex(text); loc == nil {
		text += e.ProviderBlock()
	} else if !ownsGateway {
		text = text[:loc[1]] + "\n" + e.ProviderArgs() + text[loc[1]:]
	}
	cli.WriteFile("main.tf", text)
	cli.Must("validate", "-no-color")
	if strings.Contains(filepath.Base(file), "import-by-") || ownsGateway {
		return // import blocks target the resource example; the gateway example plans in TestAccExamplesGatewayPlan
	}
	if out, code, _ := cli.Exit("plan", "-detailed-exitcode", "-no-color", "-input=false"); code == 1 {
		t.Fatalf("plan failed:\n%s", out)
	}
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

// The list resource's example finds what it describes (Terraform 1.14+).
func TestAccExamplesListFinds(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	b, err := os.ReadFile("../../examples/list-resources/gse_managed_process/list-resource.tfquery.hcl")
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   acctest.TF114Versions,
		ProtoV6ProviderFactories: e.Factories(),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					e.Register(t, gse.Meta{Namespace: "gse", Name: "web-a", Labels: map[string]string{"team": "web"}}, []string{"0:10.0.0.9"}, acctest.OpPtr(gse.OpStart))
					e.Register(t, gse.Meta{Namespace: "gse", Name: "web-b", Labels: map[string]string{"team": "db"}}, []string{"0:10.0.0.9"}, nil)
				},
				Config: e.ProviderBlock(), PlanOnly: true,
			},
			{
				Query:  true,
				Config: string(b),
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
