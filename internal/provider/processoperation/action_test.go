package processoperation_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// restartOnUpdate is the process of e.config with labels, restarted by the
// action after each update.
func restartOnUpdate(e *acctest.Env, label string) string {
	return e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "0:10.0.0.2"}, Labels: fmt.Sprintf(`{ rev = %q }`, label), Extra: `
  running = true
  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.gse_process_operation.restart]
    }
  }`}) + `
action "gse_process_operation" "restart" {
  config {
    op = "restart"
    gse = {
      meta  = { namespace = "gse", name = "proc-test" }
      hosts = [{ ip = "10.0.0.1", bk_cloud_id = 0 }, { ip = "10.0.0.2", bk_cloud_id = 0 }]
      spec  = gse_managed_process.test.spec
    }
  }
}
`
}

// An action_trigger on gse_managed_process restarts it after each update,
// not on create; a host that fails the restart fails the apply, named.
func TestAccProcessOperationAction_afterUpdate(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   acctest.TF114Versions,
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				Config: restartOnUpdate(e, "1"),
				Check:  resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.1", acctest.Restarts(0)), e.SimCheck(0, "10.0.0.2", acctest.Restarts(0))),
			},
			{
				Config: restartOnUpdate(e, "2"),
				Check:  resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.1", acctest.Restarts(1)), e.SimCheck(0, "10.0.0.2", acctest.Restarts(1))),
			},
			{
				PreConfig: func() {
					e.Sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: "10.0.0.2", Ops: []int{int(gse.OpRestart)}, Code: gse.HostAgentAbnormal, Message: "agent offline", Times: 1})
				},
				Config:      restartOnUpdate(e, "3"),
				ExpectError: regexp.MustCompile(`(?s)Could not run restart on process gse/proc-test.*10\.0\.0\.2 \(bk_cloud_id 0\): GSE code 117: agent offline`),
			},
			{
				Config: restartOnUpdate(e, "3"),
				Check:  resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.1", acctest.Restarts(2)), e.SimCheck(0, "10.0.0.2", acctest.Restarts(1))),
			},
		},
	})
}

// terraform apply -invoke runs the action on a process registered outside
// Terraform: each host is reported as its result arrives, and a failed host
// fails the run, named with its GSE code.
func TestAccProcessOperationAction_invoke(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	e.Register(t, gse.Meta{Namespace: "gse", Name: "web"}, []string{"0:10.0.0.1", "1:10.0.0.2"}, acctest.OpPtr(gse.OpStart))
	cli := acctest.NewCLIRun(t, e, `
action "gse_process_operation" "restart" {
  config {
    op = "restart"
    gse = {
      meta  = { namespace = "gse", name = "web" }
      hosts = [{ ip = "10.0.0.1", bk_cloud_id = 0 }, { ip = "10.0.0.2", bk_cloud_id = 1 }]
      spec = {
        identity       = { proc_name = "web", setup_path = "/opt/web", pid_path = "/opt/web/p.pid", user = "root" }
        control        = { start_cmd = "./start.sh", restart_cmd = "./restart.sh" }
        resource       = { cpu = 5.0, mem = 5.0 }
        monitor_policy = { auto_type = 1 }
      }
    }
  }
}
`)
	out, err := cli.Run("apply", "-auto-approve", "-no-color", "-invoke=action.gse_process_operation.restart")
	if err != nil {
		t.Fatalf("apply -invoke: %v\n%s", err, out)
	}
	for _, want := range []string{
		`restart gse/web: 10.0.0.1 (bk_cloud_id 0) ok [`,
		`restart gse/web: 10.0.0.2 (bk_cloud_id 1) ok [`,
		`ok [2/2]`,
		`restart gse/web: done on 2 hosts (task GSETASK:`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	for _, h := range []struct {
		cloud int64
		ip    string
	}{{0, "10.0.0.1"}, {1, "10.0.0.2"}} {
		if p, ok := e.Sim.GSE().Process("gse", "web", h.cloud, h.ip); !ok || p.Restarts != 1 {
			t.Errorf("%d:%s restarted %d times, want 1", h.cloud, h.ip, p.Restarts)
		}
	}

	e.Sim.AddHostFault(simulator.HostFault{API: "operate_proc_v2", IP: "10.0.0.2", Code: gse.HostAgentAbnormal, Message: "agent offline", Times: 1})
	out, err = cli.Run("apply", "-auto-approve", "-no-color", "-invoke=action.gse_process_operation.restart")
	flat := strings.Join(strings.Fields(out), " ")
	if err == nil || !strings.Contains(flat, "10.0.0.2 (bk_cloud_id 1): GSE code 117: agent offline") ||
		!strings.Contains(flat, "restart gse/web: 10.0.0.2 (bk_cloud_id 1) failed, GSE code 117: agent offline") {
		t.Fatalf("a failed host must fail the run, named: %v\n%s", err, out)
	}
}

// The action's JOB target goes through operate_process like the resource's,
// and its arguments are validated as the resource's are.
func TestAccProcessOperationAction_jobAndValidation(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	action := func(op, target string) string {
		return fmt.Sprintf(`
action "gse_process_operation" "nginx" {
  config {
    op = %q
    %s
  }
}
`, op, target)
	}
	job := `job = {
      bk_biz_id = 2
      process_infos = [{
        setup_path = "/data/nginx/bin"
        proc_name  = "nginx"
        pid_path   = "/data/nginx/run/nginx.pid"
        start_cmd  = "./nginx"
        ip_list    = [{ bk_cloud_id = 0, ip = "10.0.0.1" }, { bk_cloud_id = 0, ip = "10.0.0.2" }]
      }]
    }`
	cli := acctest.NewCLIRun(t, e, action("start", job))
	out, err := cli.Run("apply", "-auto-approve", "-no-color", "-invoke=action.gse_process_operation.nginx")
	if err != nil {
		t.Fatalf("apply -invoke: %v\n%s", err, out)
	}
	for _, ip := range []string{"10.0.0.1", "10.0.0.2"} {
		if want := "start biz:2//data/nginx/bin/nginx: " + ip + " (bk_cloud_id 0) ok"; !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
		if p, ok := e.Sim.JOB().Process(acctest.JobScope, acctest.JobIndex, 0, ip); !ok || !p.Running {
			t.Errorf("nginx on %s: %+v, want running", ip, p)
		}
	}
	if n := e.Sim.Calls("job/operate_process"); n != 1 {
		t.Errorf("job/operate_process called %d times, want 1", n)
	}

	for _, tc := range []struct{ cfg, want string }{
		{action("launch", job), `op value must be one of: ["start" "stop" "status" "restart" "reload" "kill"]`},
		{action("start", ""), `Set gse (a GSE process: meta, hosts and spec) or job`},
		{action("start", strings.Replace(job, `start_cmd  = "./nginx"`, `cmd_shell_ext = "zsh"`, 1)), `cmd_shell_ext value must be one of: ["sh" "bat" "ps1"]`},
	} {
		out, err := acctest.NewCLIRun(t, e, tc.cfg).Run("validate", "-no-color")
		if flat := strings.Join(strings.Fields(out), " "); err == nil || !strings.Contains(flat, tc.want) {
			t.Errorf("validate: want an error with %q, got %v:\n%s", tc.want, err, out)
		}
	}

	// On a JOB 3.7+ the action fails at its first call, saying why and what to use.
	e.Sim.JOB().SetProcessAPIsRemoved(true)
	before := e.JobCalls()
	out, err = acctest.NewCLIRun(t, e, action("start", job)).Run("apply", "-auto-approve", "-no-color", "-invoke=action.gse_process_operation.nginx")
	if err == nil || !acctest.RemovedJOB("operate_process").MatchString(out) {
		t.Errorf("a JOB 3.7+ must fail the action, saying so: %v\n%s", err, out)
	}
	e.CallsOnce(t, "the action", before)
}
