package provider_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// A root URL nothing answers at fails with an error that names the provider
// argument that set it and its environment variable, for each root: ESB
// (endpoint), the GSE 2.0 gateway (gateway_url) and the bk-cmdb gateway
// (cmdb_gateway_url).
func TestAccProviderUnreachableRootNamesTheSetting(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	const closed = "http://127.0.0.1:1" // a privileged port nothing listens on
	status := `
data "gse_process_status" "x" {
  meta  = { namespace = "gse", name = "p" }
  hosts = [{ ip = "10.0.0.1", bk_cloud_id = 0 }]
}`
	hostsOf := `
data "gse_cmdb_hosts" "x" { bk_biz_id = 2 }`
	for _, tc := range []struct {
		name, provider, data, setting, env string
	}{
		{"esb", `endpoint = "` + closed + `"
  app_code = "a"
  app_secret = "s"
  username = "admin"`, status, "endpoint", "BK_COMPONENT_API_URL"},
		{"gateway", `gateway_url = "` + closed + `"
  access_token = "t"`, status, "gateway_url", "BKAPP_BK_GSE_APIGATEWAY"},
		{"cmdb gateway", `endpoint = "` + e.URL + `"
  cmdb_gateway_url = "` + closed + `"
  app_code = "` + acctest.AppCode + `"
  app_secret = "` + acctest.AppSecret + `"
  username = "admin"`, hostsOf, "cmdb_gateway_url", "BKAPP_BK_CC_APIGATEWAY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: e.Factories(),
				Steps: []resource.TestStep{{
					Config: "provider \"gse\" {\n  max_retries = 0\n  " + tc.provider + "\n}\n" + tc.data,
					ExpectError: regexp.MustCompile(`(?s)could not connect to ` + regexp.QuoteMeta(closed) + `.*Nothing answers at ` + regexp.QuoteMeta(closed) +
						`: check\s+` + tc.setting + `\s+in\s+the\s+provider\s+block\s+\(or\s+` + tc.env + `\)`),
				}},
			})
		})
	}
}
