package provider_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// functionTest runs cfg (outputs calling the functions) and checks the outputs, or expects an error.
func functionTest(t *testing.T, cfg string, checks []statecheck.StateCheck, wantErr string) {
	t.Helper()
	e := acctest.NewEnv(t)
	// OpenTofu configures the provider before it calls its functions; Terraform does not need to.
	cfg = e.ProviderBlock() + cfg
	step := resource.TestStep{Config: cfg, ConfigStateChecks: checks}
	if wantErr != "" {
		// Terraform wraps long messages: any space may be a line break.
		step = resource.TestStep{Config: cfg, ExpectError: regexp.MustCompile(strings.ReplaceAll(wantErr, " ", `\s+`))}
	}
	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: e.Factories(),
		Steps:                    []resource.TestStep{step},
	})
}

func TestFunctionAgentID(t *testing.T) {
	functionTest(t, `
output "v4"     { value = provider::gse::agent_id(0, "10.0.0.1") }
output "cloud"  { value = provider::gse::agent_id(12, "192.168.1.7") }
output "v6"     { value = provider::gse::agent_id(3, "2001:DB8:0:0::1") }
output "mapped" { value = provider::gse::agent_id(0, "::ffff:10.0.0.9") }
`, []statecheck.StateCheck{
		statecheck.ExpectKnownOutputValue("v4", knownvalue.StringExact("0:10.0.0.1")),
		statecheck.ExpectKnownOutputValue("cloud", knownvalue.StringExact("12:192.168.1.7")),
		statecheck.ExpectKnownOutputValue("v6", knownvalue.StringExact("3:2001:db8::1")),
		statecheck.ExpectKnownOutputValue("mapped", knownvalue.StringExact("0:10.0.0.9")),
	}, "")
	for _, tc := range []struct{ call, want string }{
		{`provider::gse::agent_id(-1, "10.0.0.1")`, `"bk_cloud_id" parameter: must be 0 or more, got -1`},
		{`provider::gse::agent_id(0, "10.0.0")`, `"ip" parameter: must be an IPv4 or IPv6 address without a zone`},
		{`provider::gse::agent_id(0, "fe80::1%eth0")`, `without a zone`},
		{`provider::gse::agent_id(0, "host.example.com")`, `got "host.example.com"`},
	} {
		functionTest(t, `output "x" { value = `+tc.call+` }`, nil, tc.want)
	}
}

func TestFunctionParseStatusContent(t *testing.T) {
	// GSE's own form: the document encoded once more as a JSON string, two instances,
	// the first stopped, flags and pids spelled as strings and numbers.
	functionTest(t, `
locals {
  doc = {
    process = [{ instance = [
      { pid = -1, isAuto = "0", version = "" },
      { pid = "4321", isAuto = 1, version = 2.1, startTime = "now" },
    ] }]
  }
}
output "two"     { value = provider::gse::parse_status_content(jsonencode(jsonencode(local.doc))) }
output "stopped" { value = provider::gse::parse_status_content(jsonencode({ process = [{ instance = [{ pid = -1 }] }] })) }
output "empty"   { value = provider::gse::parse_status_content("") }
`, []statecheck.StateCheck{
		statecheck.ExpectKnownOutputValue("two", knownvalue.ObjectExact(map[string]knownvalue.Check{
			"instances": knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectExact(map[string]knownvalue.Check{"pid": knownvalue.Int64Exact(-1), "hosted": knownvalue.Bool(false), "version": knownvalue.StringExact("")}),
				knownvalue.ObjectExact(map[string]knownvalue.Check{"pid": knownvalue.Int64Exact(4321), "hosted": knownvalue.Bool(true), "version": knownvalue.StringExact("2.1")}),
			}),
			"running": knownvalue.Bool(true),
			"pid":     knownvalue.Int64Exact(4321),
			"hosted":  knownvalue.Bool(true),
			"version": knownvalue.StringExact("2.1"),
		})),
		statecheck.ExpectKnownOutputValue("stopped", knownvalue.ObjectExact(map[string]knownvalue.Check{
			"instances": knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectExact(map[string]knownvalue.Check{"pid": knownvalue.Int64Exact(-1), "hosted": knownvalue.Null(), "version": knownvalue.StringExact("")}),
			}),
			"running": knownvalue.Bool(false),
			"pid":     knownvalue.Int64Exact(-1),
			"hosted":  knownvalue.Null(),
			"version": knownvalue.StringExact(""),
		})),
		statecheck.ExpectKnownOutputValue("empty", knownvalue.ObjectPartial(map[string]knownvalue.Check{
			"instances": knownvalue.ListSizeExact(0),
			"running":   knownvalue.Bool(false),
		})),
	}, "")
	functionTest(t, `output "x" { value = provider::gse::parse_status_content("{not json") }`, nil,
		`result content is not JSON \(invalid character 'n' looking for beginning of object key string, at byte 2\); the documented content is`)
	functionTest(t, `output "x" { value = provider::gse::parse_status_content(jsonencode({ process = { instance = [] } })) }`, nil,
		`Invalid value for "content" parameter: result content is not the documented JSON: process holds an object where a list belongs; the documented content is`)
}
