package jobmanagedprocess_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

func TestAccJobProcessStatusDataSource(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	ds := "data.gse_job_process_status.test"
	cfg := e.JobConfig("./nginx", "0:10.0.0.1") + `
data "gse_job_process_status" "test" {
  bk_biz_id  = tonumber(gse_job_managed_process.test.bk_scope_id)
  setup_path = gse_job_managed_process.test.setup_path
  proc_name  = gse_job_managed_process.test.proc_name
  pid_path   = gse_job_managed_process.test.pid_path
  ip_list    = [{ bk_cloud_id = 0, ip = "10.0.0.1" }, { bk_cloud_id = 0, ip = "10.0.0.9" }]
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
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
			Check: resource.TestCheckResourceAttrPair("data.gse_job_process_status.test", "ip_status.0.pid", acctest.JobAddr, "ip_status.0:10.0.0.1.pid"),
		}, {
			// An IP that never answers is reported as pending once the read timeout passes; the read does not hang.
			PreConfig: func() {
				e.Sim.AddHostFault(simulator.HostFault{API: "job/operate_process", IP: "10.0.0.9", Ops: []int{2}, Code: 115, Times: simulator.Forever})
			},
			Config: strings.Replace(cfg, `ip_list    = [{ bk_cloud_id = 0, ip = "10.0.0.1" }`, `timeouts   = { read = "1s" }
  ip_list    = [{ bk_cloud_id = 0, ip = "10.0.0.1" }`, 1),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("ip_status").AtSliceIndex(1), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"ip": knownvalue.StringExact("10.0.0.9"), "status": knownvalue.StringExact("error (GSE code 115)"),
					"error_code": knownvalue.Int64Exact(115), "error_msg": knownvalue.StringExact("no answer before the deadline"),
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("ip_status").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("running")),
			},
		}},
	})
}
