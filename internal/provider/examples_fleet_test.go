package provider_test

import (
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// The fleet example applies against a simulator with a CMDB business: the
// plugin on the two modules, nginx on the set, and the status check holds.
func TestAccExamplesFleet(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnvWith(t, acctest.Modes[0], func(o *simulator.Options) { o.CMDBHosts = 400 })
	b, err := os.ReadFile("../../examples/fleet/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	cfg := acctest.Edited(t, string(b), `provider "gse" {}`, e.ProviderBlock())
	// The test framework installs the provider as hashicorp/gse.
	cfg = acctest.Edited(t, cfg, "terraform {\n  required_providers {\n    gse = { source = \"bk-gse/gse\" }\n  }\n}\n", "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: resource.ComposeAggregateTestCheckFunc(
				// Modules 1001-1002 hold hosts 1-200; through ESB, the 4 IPv6-only and 2 without address are left out.
				resource.TestCheckResourceAttr("data.gse_cmdb_hosts.monitored", "host_count", "194"),
				resource.TestCheckResourceAttr("gse_managed_process.exporter", "hosts.#", "194"),
				resource.TestCheckResourceAttr("gse_job_managed_process.nginx", "ip_list.#", "198"), // set 102: hosts 201-400 but 299 and 399
				resource.TestCheckResourceAttr("data.gse_process_status.exporter", "all_running", "true"),
			),
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		}},
	})
}
