package service_test

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

const addr = "gse_service.test"

// svcGroup is one process of a test service: its name, CMDB priority and
// the last octets of its hosts (10.0.0.x).
type svcGroup struct {
	name     string
	priority int
	hosts    []int
}

// serviceConfig is the provider block and a gse_service of groups (in
// namespace "svc") with extra arguments.
func serviceConfig(e *acctest.Env, groups []svcGroup, extra string) string {
	return e.ProviderBlock() + fmt.Sprintf(`
resource "gse_service" "test" {
  processes = {%s
  }
%s
}
`, groupsHCL("svc", groups), extra)
}

// groupsHCL is the elements of processes for groups in namespace ns.
func groupsHCL(ns string, groups []svcGroup) string {
	var b strings.Builder
	for _, g := range groups {
		var hs []string
		for _, h := range g.hosts {
			hs = append(hs, fmt.Sprintf(`{ ip = "10.0.0.%d", bk_cloud_id = 0 }`, h))
		}
		fmt.Fprintf(&b, `
    "%[4]s/%[1]s" = {
      meta     = { namespace = %[4]q, name = %[1]q }
      priority = %[2]d
      hosts    = [%[3]s]
      spec = {
        identity = { proc_name = %[1]q, setup_path = "/data/%[1]s", pid_path = "/data/%[1]s/%[1]s.pid", user = "root" }
        control  = { start_cmd = "./start.sh", stop_cmd = "./stop.sh", restart_cmd = "./restart.sh", reload_cmd = "./reload.sh" }
        resource = { cpu = 0, mem = 0 }
        monitor_policy = { auto_type = 1 }
      }
    }`, g.name, g.priority, strings.Join(hs, ", "), ns)
	}
	return b.String()
}

// taskProcesses lists, task by task from the since-th on, the processes
// the task carried op_type op for, each once, sorted.
func taskProcesses(sim *simulator.Server, since, op int) [][]string {
	var out [][]string
	for _, task := range sim.Tasks()[since:] {
		var procs []string
		for _, tg := range task.Targets {
			if tg.Op == op && !slices.Contains(procs, tg.Process) {
				procs = append(procs, tg.Process)
			}
		}
		if len(procs) > 0 {
			slices.Sort(procs)
			out = append(out, procs)
		}
	}
	return out
}

// expectTaskOrder checks the processes of the op tasks since mark.
func expectTaskOrder(sim *simulator.Server, mark *int, op int, want ...[]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := taskProcesses(sim, *mark, op); !slices.EqualFunc(got, want, slices.Equal) {
			return fmt.Errorf("op_type %d tasks carried %v, want %v", op, got, want)
		}
		return nil
	}
}

// recordPIDs notes the pid of every process of the simulator by process and host.
func recordPIDs(sim *simulator.Server, pids map[string]int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, p := range sim.GSE().Processes() {
			pids[p.Namespace+"/"+p.Name+"@"+p.IP] = p.PID
		}
		return nil
	}
}

// samePIDs checks that the processes recorded on ips run with the pid recorded.
func samePIDs(sim *simulator.Server, pids map[string]int64, ips []string) error {
	for _, p := range sim.GSE().Processes() {
		k := p.Namespace + "/" + p.Name + "@" + p.IP
		if want, ok := pids[k]; ok && slices.Contains(ips, p.IP) && (p.PID != want || !p.Running) {
			return fmt.Errorf("%s: pid %d (running %t), want %d untouched", k, p.PID, p.Running, want)
		}
	}
	return nil
}
