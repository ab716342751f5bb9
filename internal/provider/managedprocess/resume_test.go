package managedprocess_test

import (
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// A create that fails on one host leaves the resource tainted with the hosts
// where it succeeded. Terraform would replace it: stop the process there and
// start it again. The error says how to finish only the failed hosts instead
// (terraform untaint, then apply), and that is what happens: the healthy
// host's process keeps its pid, the failed one starts.
func TestAccManagedProcess_failedCreateResumes(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		api := "register_proc_info"
		if e.Gateway {
			api = "operate_proc_v2"
		}
		e.Sim.AddHostFault(simulator.HostFault{API: api, IP: "10.0.0.2", Code: gse.HostAgentAbnormal, Message: "agent abnormal", Times: 1})
		cfg := strings.TrimPrefix(e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "0:10.0.0.2"}, Extra: "running = true"}), e.ProviderBlock())
		cli := acctest.NewCLIRunFrom(t, e, "1.0.0", cfg)
		out, err := cli.Run("apply", "-auto-approve", "-no-color", "-input=false")
		if err == nil || !wordsRegexp("Could not create process gse/proc-test", "10.0.0.2", "117",
			"To finish only the hosts that failed", "terraform untaint", "then terraform apply").MatchString(out) {
			t.Fatalf("apply with an abnormal agent on 10.0.0.2: %v, want the untaint advice\n%s", err, out)
		}
		// Through the gateway the create's one operation started 10.0.0.1; through
		// ESB its register succeeded and the start was never sent.
		healthy, ok := e.GSEProc(0, "10.0.0.1")()
		if !ok || healthy.Running != e.Gateway {
			t.Fatalf("10.0.0.1 after the failed create: registered %v, running %v; want registered, running %v", ok, healthy.Running, e.Gateway)
		}
		tasks := len(e.Sim.Tasks())
		cli.Must("untaint", "-no-color", acctest.Addr)
		cli.Must("apply", "-auto-approve", "-no-color", "-input=false")
		after, _ := e.GSEProc(0, "10.0.0.1")()
		switch {
		case after.RegisterTime != healthy.RegisterTime || after.Restarts != 0 || !after.Running:
			t.Errorf("10.0.0.1 was registered or restarted again: registered at %d then %d, %d restarts, running %v", healthy.RegisterTime, after.RegisterTime, after.Restarts, after.Running)
		case healthy.Running && after.PID != healthy.PID:
			t.Errorf("10.0.0.1 was started again: pid %d to %d", healthy.PID, after.PID)
		case e.Sim.Calls("unregister_proc_info") != 0:
			t.Errorf("the resource was replaced: unregister_proc_info sent")
		}
		for _, task := range e.Sim.Tasks()[tasks:] {
			for _, tg := range task.Targets {
				if tg.IP == "10.0.0.1" && tg.Op != int(gse.OpStart) && tg.Op != int(gse.OpHost) {
					t.Errorf("the second apply sent op_type %d to 10.0.0.1 (task %s): only hosting and starting what never was are due", tg.Op, task.TaskID)
				}
			}
		}
		if p, ok := e.GSEProc(0, "10.0.0.2")(); !ok || acctest.HostedAndRunning(p) != nil {
			t.Errorf("10.0.0.2 after the second apply: %+v, want hosted and running", p)
		}
		if out, code, _ := cli.Exit("plan", "-detailed-exitcode", "-no-color", "-input=false"); code != 0 {
			t.Errorf("plan after the second apply: exit %d, want 0\n%s", code, out)
		}
		cli.Must("destroy", "-auto-approve", "-no-color", "-input=false")
		if err := e.CheckSimEmpty(nil); err != nil {
			t.Fatal(err)
		}
	})
}
