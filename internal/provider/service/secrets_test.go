package service_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// tokenFile is a file of every agent instance written from content_wo.
func tokenFile(secret, version string) string {
	return fmt.Sprintf(`config_files = {
    token = { group = "hc/agent_1", path = "/data/exporter", file_name = "token", content_wo = %q, content_wo_version = %q, on_change = "restart" }
  }`, secret, version)
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// A group's file from content_wo: written on every host of the group, its
// hash alone in the state, never its text; a new version restarts the
// group's instances; a host whose agent JOB cannot reach fails only its
// instance, which keeps the old hash (the release stops there), and the
// next apply pushes and restarts only what is left, not host 1 again. Two files on one path of one host fail the plan.
func TestAccService_groupFileFromWriteOnly(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts = 4 }, func(t *testing.T, e *acctest.Env) {
		cfg := func(secret, version string) string { return cmdbService(e, tokenFile(secret, version)) }
		hash := func(k string) tfjsonpath.Path {
			return tfjsonpath.New("instances").AtMapKey(k).AtMapKey("config").AtMapKey("token")
		}
		resource.Test(t, resource.TestCase{
			// Write-only attributes need Terraform 1.11 (OpenTofu 1.10 has none).
			TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{
					Config: cfg("s3cr3t-1", "1"),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, hash("hc/agent_1@0:10.0.0.3"), knownvalue.StringExact(sum("s3cr3t-1"))),
					},
					Check: resource.ComposeAggregateTestCheckFunc(fileOn(e.Sim, 4, "/data/exporter/token", "s3cr3t-1"), noSecretIn("s3cr3t")),
				},
				{
					PreConfig:   func() { e.Sim.JOBv3().SetAgentDown(3, true) },
					Config:      cfg("s3cr3t-2", "2"),
					ExpectError: regexp.MustCompile(`config_files\["token"\] \(/data/exporter/token\) not written on`),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, hash("hc/agent_1@0:10.0.0.3"), knownvalue.StringExact(sum("s3cr3t-1"))),
						statecheck.ExpectKnownValue(addr, hash("hc/agent_1@0:10.0.0.1"), knownvalue.StringExact(sum("s3cr3t-2"))),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						fileOn(e.Sim, 3, "/data/exporter/token", "s3cr3t-1"), fileOn(e.Sim, 1, "/data/exporter/token", "s3cr3t-2"),
						e.SimCheckOf("hc", "agent_1", "10.0.0.1", acctest.Restarts(1)),
					),
				},
				{
					PreConfig: func() { e.Sim.JOBv3().SetAgentDown(3, false) },
					Config:    cfg("s3cr3t-2", "2"),
					Check: resource.ComposeAggregateTestCheckFunc(
						fileOn(e.Sim, 3, "/data/exporter/token", "s3cr3t-2"),
						e.SimCheckOf("hc", "agent_1", "10.0.0.3", acctest.Restarts(1)),
						e.SimCheckOf("hc", "agent_1", "10.0.0.1", acctest.Restarts(1)),
						noSecretIn("s3cr3t"),
					),
				},
				{
					Config: cmdbService(e, `config_files = {
    a = { group = "hc/agent_1", path = "/data/exporter", file_name = "token", content = "a" }
    b = { instance = "hc/agent_1@0:10.0.0.3", path = "/data/exporter", file_name = "token", content = "b" }
  }`),
					ExpectError: regexp.MustCompile(`config_files\["a"\] and config_files\["b"\] both write /data/exporter/token`),
				},
			},
		})
	})
}

// noSecretIn checks that no attribute of the state holds text.
func noSecretIn(text string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for k, v := range s.RootModule().Resources[addr].Primary.Attributes {
			if strings.Contains(v, text) {
				return fmt.Errorf("the state holds %q in %s", text, k)
			}
		}
		return nil
	}
}
