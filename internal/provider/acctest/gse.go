package acctest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// Addr is the gse_managed_process of Env.Config.
const Addr = "gse_managed_process.test"

// Proc describes a test configuration of gse_managed_process.
type Proc struct {
	Hosts     []string // "cloud:ip", or "agent:{agent_id}"
	SetupPath string
	Labels    string // HCL map, or "" for none
	Extra     string // more arguments: running, managed, triggers, timeouts
}

// Config is the provider block and a gse_managed_process for p.
func (e *Env) Config(p Proc) string {
	var hosts []string
	for _, h := range p.Hosts {
		if id, ok := strings.CutPrefix(h, "agent:"); ok {
			hosts = append(hosts, fmt.Sprintf(`{ agent_id = %q }`, id))
			continue
		}
		cloud, ip, _ := strings.Cut(h, ":")
		hosts = append(hosts, fmt.Sprintf(`{ ip = %q, bk_cloud_id = %s }`, ip, cloud))
	}
	if p.SetupPath == "" {
		p.SetupPath = "/data/gsetest"
	}
	labels := ""
	if p.Labels != "" {
		labels = ", labels = " + p.Labels
	}
	return e.ProviderBlock() + fmt.Sprintf(`
resource "gse_managed_process" "test" {
  meta  = { namespace = "gse", name = "proc-test"%s }
  hosts = [%s]
  spec = {
    identity = {
      proc_name   = "proc-test"
      setup_path  = %[3]q
      pid_path    = "%[3]s/proc-test.pid"
      config_path = "%[3]s/proc-test.conf"
      log_path    = "%[3]s/logs"
      user        = "root"
    }
    control = {
      start_cmd = "./start.sh", stop_cmd = "./stop.sh", restart_cmd = "./restart.sh", reload_cmd = "./reload.sh"
      kill_cmd = "./kill.sh", version_cmd = "./version.sh", health_cmd = "./health.sh"
    }
    resource       = { cpu = 10.0, mem = 10.0, fd = 10000, disk = 100, net = 0 }
    monitor_policy = { auto_type = 1, start_check_secs = 5, stop_check_secs = 5, start_retries = 3, start_interval = 20, crontab_rule = "", op_timeout = 60 }
    warn_report_policy = { report_id = 0 }
    configmap          = [{ path = "%[3]s/proc-test.conf", md5 = "d41d8cd98f00b204e9800998ecf8427e" }]
  }
%[4]s
}
`, labels, strings.Join(hosts, ", "), p.SetupPath, p.Extra)
}

// ExpectProc asserts the simulator's state of the process that get finds at where.
func ExpectProc(where string, get func() (simulator.Process, bool), check func(simulator.Process) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		p, ok := get()
		if !ok {
			return fmt.Errorf("the process is not registered on %s", where)
		}
		return check(p)
	}
}

// expectNoProc asserts that get finds no process at where.
func expectNoProc(where string, get func() (simulator.Process, bool)) resource.TestCheckFunc {
	return expectGone(where, get, func(simulator.Process) bool { return false })
}

// expectGone asserts that get finds no process at where, or one that is gone.
func expectGone(where string, get func() (simulator.Process, bool), gone func(simulator.Process) bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if p, ok := get(); ok && !gone(p) {
			return fmt.Errorf("the process is still registered on %s: %+v", where, p)
		}
		return nil
	}
}

// GSEProc reads the process of Config on a host from the simulator.
func (e *Env) GSEProc(cloud int64, ip string) func() (simulator.Process, bool) {
	return func() (simulator.Process, bool) { return e.Sim.GSE().Process("gse", "proc-test", cloud, ip) }
}

// SimCheck checks the process of Config on a host in the simulator.
func (e *Env) SimCheck(cloud int64, ip string, check func(simulator.Process) error) resource.TestCheckFunc {
	return ExpectProc(fmt.Sprintf("GSE %d:%s", cloud, ip), e.GSEProc(cloud, ip), check)
}

// SimPID checks that attribute attr of the resource or data source at addr
// is the pid the simulator gave the process of Config on a host.
func (e *Env) SimPID(addr, attr string, cloud int64, ip string) resource.TestCheckFunc {
	return resource.TestCheckResourceAttrWith(addr, attr, func(v string) error {
		p, ok := e.GSEProc(cloud, ip)()
		if !ok || v != strconv.FormatInt(p.PID, 10) {
			return fmt.Errorf("%s.%s is %s, want the pid of the process on %d:%s (%+v)", addr, attr, v, cloud, ip, p)
		}
		return nil
	})
}

// SimAbsent checks that the process of Config is gone from a host (see Env.Gone).
func (e *Env) SimAbsent(cloud int64, ip string) resource.TestCheckFunc {
	return expectGone(fmt.Sprintf("GSE %d:%s", cloud, ip), e.GSEProc(cloud, ip), e.gone)
}

// HostedAndRunning checks that a process is hosted and running.
func HostedAndRunning(p simulator.Process) error {
	if !p.Hosted || !p.Running || p.PID <= 0 {
		return fmt.Errorf("want hosted and running, got %+v", p)
	}
	return nil
}

// Host checks a host object by bk_cloud_id and ip.
func Host(cloud int64, ip string) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"ip": knownvalue.StringExact(ip), "bk_cloud_id": knownvalue.Int64Exact(cloud), "bk_supplier_id": knownvalue.Int64Exact(0), "agent_id": knownvalue.Null(),
	})
}

// Restarts checks that a process was restarted n times and is hosted and running.
func Restarts(n int) func(simulator.Process) error {
	return func(p simulator.Process) error {
		if p.Restarts != n {
			return fmt.Errorf("restarted %d times, want %d", p.Restarts, n)
		}
		return HostedAndRunning(p)
	}
}

// HasLabels checks the labels GSE holds for a process (none for an empty want).
func HasLabels(want map[string]string) func(simulator.Process) error {
	return func(p simulator.Process) error {
		if !maps.Equal(p.Labels, want) {
			return fmt.Errorf("labels %v in GSE, want %v", p.Labels, want)
		}
		return nil
	}
}

// Register puts a process on hosts ("cloud:ip", or "agent:{agent_id}" through the gateway) behind Terraform's back, as
// an operator did before adopting Terraform, and runs op there (hosting,
// start) when op is not nil. Through the gateway, which has no register, an
// operation with the spec creates it: op, or hosting undone at once.
func (e *Env) Register(t *testing.T, meta gse.Meta, hosts []string, op *gse.OpType) {
	t.Helper()
	c := e.Client(t)
	spec := &gse.Spec{
		Identity:      gse.Identity{ProcName: meta.Name, SetupPath: "/opt/" + meta.Name, PidPath: "/opt/" + meta.Name + "/p.pid", User: "root"},
		Control:       gse.Control{StartCmd: "./start.sh", StopCmd: "./stop.sh", RestartCmd: "./restart.sh"},
		Resource:      &gse.Resource{CPU: 5, Mem: 5},
		MonitorPolicy: &gse.MonitorPolicy{AutoType: 1},
	}
	var hs []gse.Host
	for _, h := range hosts {
		if id, ok := strings.CutPrefix(h, "agent:"); ok {
			hs = append(hs, gse.Host{AgentID: id})
			continue
		}
		var cloud int64
		var ip string
		if _, err := fmt.Sscanf(h, "%d:%s", &cloud, &ip); err != nil {
			t.Fatalf("host %q: %v", h, err)
		}
		hs = append(hs, gse.Host{IP: ip, BkCloudID: cloud})
	}
	ctx := context.Background()
	ops := []gse.OpType{}
	switch {
	case !e.Gateway:
		if _, err := c.Proc.RegisterProcInfo(ctx, meta, hs, spec); err != nil {
			t.Fatal(err)
		}
	case op == nil:
		ops = append(ops, gse.OpHost, gse.OpUnhost)
	}
	if op != nil {
		ops = append(ops, *op)
	}
	for _, o := range ops {
		if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: hs, Op: o, Spec: spec}); err != nil {
			t.Fatal(err)
		}
	}
}

// OpPtr is a pointer to op, for Env.Register's optional operation.
func OpPtr(op gse.OpType) *gse.OpType { return &op }

// CheckOnlyLeft is a CheckDestroy for tests that register processes outside
// Terraform: only processes of these namespace/name may remain.
func (e *Env) CheckOnlyLeft(names ...string) func(*terraform.State) error {
	return func(*terraform.State) error {
		for _, p := range e.Sim.GSE().Processes() {
			if n := p.Namespace + "/" + p.Name; !slices.Contains(names, n) && !e.gone(p) {
				return fmt.Errorf("process %s left in GSE after destroy on %s", n, p.IP)
			}
		}
		return nil
	}
}

// SimCheckOf checks a process of namespace and name on a host of cloud 0 in the simulator.
func (e *Env) SimCheckOf(namespace, name, ip string, check func(simulator.Process) error) resource.TestCheckFunc {
	return ExpectProc(fmt.Sprintf("GSE %s/%s@0:%s", namespace, name, ip), func() (simulator.Process, bool) { return e.Sim.GSE().Process(namespace, name, 0, ip) }, check)
}
