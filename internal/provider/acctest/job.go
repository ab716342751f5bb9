package acctest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// The gse_job_managed_process of Env.JobConfig: its address, scope and process.
const (
	JobAddr  = "gse_job_managed_process.test"
	JobScope = "biz:2"
	JobIndex = "/data/nginx/bin/nginx"
)

// JobConfig is a gse_job_managed_process hosting nginx on ips ("cloud:ip").
func (e *Env) JobConfig(startCmd string, ips ...string) string {
	var list []string
	for _, h := range ips {
		cloud, ip, _ := strings.Cut(h, ":")
		list = append(list, fmt.Sprintf(`{ bk_cloud_id = %s, ip = %q }`, cloud, ip))
	}
	return e.ProviderBlock() + fmt.Sprintf(`
resource "gse_job_managed_process" "test" {
  bk_scope_type          = "biz"
  bk_scope_id            = "2"
  proc_name              = "nginx"
  contact                = "ops"
  setup_path             = "/data/nginx/bin"
  pid_path               = "/data/nginx/run/nginx.pid"
  cfg_path               = "/data/nginx/conf/nginx.conf"
  log_path               = "/data/nginx/logs"
  start_cmd              = %q
  stop_cmd               = "./nginx -s stop"
  restart_cmd            = "./nginx -s stop; ./nginx"
  reload_cmd             = "./nginx -s reload"
  kill_cmd               = "pkill -9 nginx"
  type                   = 1
  cpu_lmt                = 20
  mem_lmt                = 30
  instance_num           = 1
  op_timeout             = 5
  start_check_begin_time = 5
  start_check_end_time   = 10
  ip_list                = [%s]
  timeouts               = { create = "5s" }
}
`, startCmd, strings.Join(list, ", "))
}

func (e *Env) jobProc(cloud int64, ip string) func() (simulator.Process, bool) {
	return func() (simulator.Process, bool) { return e.Sim.JOB().Process(JobScope, JobIndex, cloud, ip) }
}

// JobCheck checks the JOB process of JobConfig on a host in the simulator.
func (e *Env) JobCheck(cloud int64, ip string, check func(simulator.Process) error) resource.TestCheckFunc {
	return ExpectProc(fmt.Sprintf("JOB %d:%s", cloud, ip), e.jobProc(cloud, ip), check)
}

// JobAbsent: no JOB process on ip in the default cloud area (every caller's).
func (e *Env) JobAbsent(ip string) resource.TestCheckFunc {
	return expectNoProc("JOB 0:"+ip, e.jobProc(0, ip))
}

// RemovedJOB matches the error of a JOB 3.7+ for api, across line wraps.
func RemovedJOB(api string) *regexp.Regexp {
	want := "this installation's JOB (3.7 or later) no longer serves " + api + ": use gse_managed_process (or gse_process_operation with target = gse)"
	return regexp.MustCompile(`(?i)` + strings.ReplaceAll(regexp.QuoteMeta(want), " ", `\s+`))
}

// JobCalls counts the operate_process and get_proc_result requests so far.
func (e *Env) JobCalls() [2]int {
	return [2]int{e.Sim.Calls("job/operate_process"), e.Sim.Calls("job/get_proc_result")}
}

// CallsOnce asserts that operate_process was sent exactly once since before
// and nothing was polled: a RemovedError is never retried.
func (e *Env) CallsOnce(t *testing.T, what string, before [2]int) {
	t.Helper()
	now := e.JobCalls()
	if now[0]-before[0] != 1 || now[1] != before[1] {
		t.Errorf("%s: operate_process sent %d times, get_proc_result %d, want 1 and 0", what, now[0]-before[0], now[1]-before[1])
	}
}
