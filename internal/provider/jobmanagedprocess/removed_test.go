package jobmanagedprocess_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// On a JOB 3.7 or later every JOB resource, data source and operation fails
// at its first call, saying why and what to use instead.
func TestAccJob_removed(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	e.Sim.JOB().SetProcessAPIsRemoved(true)
	dataSource := e.ProviderBlock() + `
data "gse_job_process_status" "test" {
  bk_biz_id  = 2
  setup_path = "/data/nginx/bin"
  proc_name  = "nginx"
  pid_path   = "/data/nginx/run/nginx.pid"
  ip_list    = [{ bk_cloud_id = 0, ip = "10.0.0.1" }]
}
`
	operation := e.ProviderBlock() + `
resource "gse_process_operation" "test" {
  op = "start"
  job = {
    bk_biz_id = 2
    process_infos = [{
      setup_path = "/data/nginx/bin"
      proc_name  = "nginx"
      pid_path   = "/data/nginx/run/nginx.pid"
      ip_list    = [{ bk_cloud_id = 0, ip = "10.0.0.1" }]
    }]
  }
}
`
	for _, tc := range []struct{ what, cfg string }{
		{"gse_job_managed_process", e.JobConfig("./nginx", "0:10.0.0.1")},
		{"gse_job_process_status", dataSource},
		{"gse_process_operation", operation},
	} {
		before := e.JobCalls()
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps:                    []resource.TestStep{{Config: tc.cfg, ExpectError: acctest.RemovedJOB("operate_process")}},
		})
		e.CallsOnce(t, tc.what, before)
	}
	if p := e.Sim.JOB().Processes(); len(p) != 0 {
		t.Errorf("processes %+v", p)
	}
}

// A process hosted before JOB was upgraded: refresh fails saying why (it is
// not dropped from the state as if unhosted), destroy too, pointing to
// terraform state rm; back on a JOB that serves the APIs, destroy unhosts.
func TestAccJobManagedProcess_removedAfterCreate(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := e.JobConfig("./nginx", "0:10.0.0.1")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{Config: cfg, Check: e.JobCheck(0, "10.0.0.1", acctest.HostedAndRunning)},
			{
				PreConfig:    func() { e.Sim.JOB().SetProcessAPIsRemoved(true) },
				RefreshState: true,
				ExpectError:  acctest.RemovedJOB("operate_process"),
			},
			{
				Config: cfg, Destroy: true,
				ExpectError: regexp.MustCompile(`(?s)process JOB biz:2//data/nginx/bin/nginx.*no\s+longer\s+serves.*terraform\s+state\s+rm`),
			},
			{
				PreConfig: func() { e.Sim.JOB().SetProcessAPIsRemoved(false) },
				Config:    cfg,
				Check:     e.JobCheck(0, "10.0.0.1", acctest.HostedAndRunning),
			},
		},
	})
	if _, ok := e.Sim.JOB().Process(acctest.JobScope, acctest.JobIndex, 0, "10.0.0.1"); !ok {
		t.Error("the process is gone from the agent; unhosting keeps it")
	}
}

// JOB failing for a while (ESB's 1306201 with a timeout, not "Status Code:
// 404") is not a JOB 3.7: the apply reads through it; when it lasts, the
// error says the calls kept failing, never that JOB removed the API.
func TestAccJobManagedProcess_outageIsNotRemoved(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	e.Sim.AddFault(simulator.Fault{API: "job/get_proc_result", Code: gse.CodeESBBackendFailed, Times: 2})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{Config: e.JobConfig("./nginx", "0:10.0.0.1")},
			{
				PreConfig: func() {
					e.Sim.AddFault(simulator.Fault{API: "job/operate_process", Code: gse.CodeESBBackendFailed, Times: simulator.Forever})
				},
				Config:      e.JobConfig("./nginx -g daemon", "0:10.0.0.1"),
				ExpectError: regexp.MustCompile(`(?s)` + acctest.WrappedPattern(`code 1306201: Component request third-party system \[JOBV3\].*response time exceeds 30 seconds.*kept failing`)),
			},
			{PreConfig: e.Sim.ClearFaults, Config: e.JobConfig("./nginx", "0:10.0.0.1")},
		},
	})
}
