package provider_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// removedJOB matches the error of a JOB 3.7+ for api, across line wraps.
func removedJOB(api string) *regexp.Regexp {
	want := "this installation's JOB (3.7 or later) no longer serves " + api + ": use gse_managed_process (or gse_process_operation with target = gse)"
	return regexp.MustCompile(`(?i)` + strings.ReplaceAll(regexp.QuoteMeta(want), " ", `\s+`))
}

// jobCalls counts the operate_process and get_proc_result requests so far.
func (e *testEnv) jobCalls() [2]int {
	return [2]int{e.sim.Calls("job/operate_process"), e.sim.Calls("job/get_proc_result")}
}

// callsOnce asserts that operate_process was sent exactly once since before
// and nothing was polled: a RemovedError is never retried.
func (e *testEnv) callsOnce(t *testing.T, what string, before [2]int) {
	t.Helper()
	now := e.jobCalls()
	if now[0]-before[0] != 1 || now[1] != before[1] {
		t.Errorf("%s: operate_process sent %d times, get_proc_result %d, want 1 and 0", what, now[0]-before[0], now[1]-before[1])
	}
}

// On a JOB 3.7 or later every JOB resource, data source and operation fails
// at its first call, saying why and what to use instead.
func TestAccJob_removed(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.sim.SetJobProcessAPIsRemoved(true)
	dataSource := e.providerBlock() + `
data "gse_job_process_status" "test" {
  bk_biz_id  = 2
  setup_path = "/data/nginx/bin"
  proc_name  = "nginx"
  pid_path   = "/data/nginx/run/nginx.pid"
  ip_list    = [{ bk_cloud_id = 0, ip = "10.0.0.1" }]
}
`
	operation := e.providerBlock() + `
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
		{"gse_job_managed_process", e.jobConfig("./nginx", "0:10.0.0.1")},
		{"gse_job_process_status", dataSource},
		{"gse_process_operation", operation},
	} {
		before := e.jobCalls()
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.factories(),
			Steps:                    []resource.TestStep{{Config: tc.cfg, ExpectError: removedJOB("operate_process")}},
		})
		e.callsOnce(t, tc.what, before)
	}
	if p := e.sim.JobProcesses(); len(p) != 0 {
		t.Errorf("processes %+v", p)
	}
}

// A process hosted before JOB was upgraded: refresh fails saying why (it is
// not dropped from the state as if unhosted), destroy too, pointing to
// terraform state rm; back on a JOB that serves the APIs, destroy unhosts.
func TestAccJobManagedProcess_removedAfterCreate(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	cfg := e.jobConfig("./nginx", "0:10.0.0.1")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		CheckDestroy:             e.checkSimEmpty,
		Steps: []resource.TestStep{
			{Config: cfg, Check: e.jobCheck(0, "10.0.0.1", hostedAndRunning)},
			{
				PreConfig:    func() { e.sim.SetJobProcessAPIsRemoved(true) },
				RefreshState: true,
				ExpectError:  removedJOB("operate_process"),
			},
			{
				Config: cfg, Destroy: true,
				ExpectError: regexp.MustCompile(`(?s)process JOB biz:2//data/nginx/bin/nginx.*no\s+longer\s+serves.*terraform\s+state\s+rm`),
			},
			{
				PreConfig: func() { e.sim.SetJobProcessAPIsRemoved(false) },
				Config:    cfg,
				Check:     e.jobCheck(0, "10.0.0.1", hostedAndRunning),
			},
		},
	})
	if _, ok := e.sim.JobProcess(jobScope, jobIndex, 0, "10.0.0.1"); !ok {
		t.Error("the process is gone from the agent; unhosting keeps it")
	}
}
