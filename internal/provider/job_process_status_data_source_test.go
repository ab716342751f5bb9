package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccJobProcessStatusDataSource(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ds := "data.gse_job_process_status.test"
	cfg := e.jobConfig("./nginx", "0:10.0.0.1") + `
data "gse_job_process_status" "test" {
  bk_biz_id  = tonumber(gse_job_managed_process.test.bk_scope_id)
  setup_path = gse_job_managed_process.test.setup_path
  proc_name  = gse_job_managed_process.test.proc_name
  pid_path   = gse_job_managed_process.test.pid_path
  ip_list    = [{ bk_cloud_id = 0, ip = "10.0.0.1" }, { bk_cloud_id = 0, ip = "10.0.0.9" }]
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		CheckDestroy:             e.checkSimEmpty,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("all_running"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("ip_status"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"ip": knownvalue.StringExact("10.0.0.1"), "status": knownvalue.StringExact("running"), "managed": knownvalue.Bool(true),
						"version": knownvalue.StringExact("1.0.0"), "error_code": knownvalue.Int64Exact(0),
					}),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"ip": knownvalue.StringExact("10.0.0.9"), "status": knownvalue.StringExact("stopped"), "managed": knownvalue.Bool(false),
						"pid": knownvalue.Int64Exact(-1),
					}),
				})),
			},
			Check: resource.TestCheckResourceAttrPair("data.gse_job_process_status.test", "ip_status.0.pid", jobAddr, "ip_status.0:10.0.0.1.pid"),
		}},
	})
}
