package service_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// `terraform apply -invoke` of gse_process_operation on a gse_service
// restarts it as its release would: the canary's tiers first, then the
// rest's, each in descending priority (web, 10, before db, 0), each batch a
// progress line, every instance with a new pid and no update_proc_info;
// a reload goes in ascending priority; an operation the service does not
// take is refused before anything runs.
func TestAccServiceAction_operate(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) { operateService(t, e) })
}

func operateService(t *testing.T, e *acctest.Env) {
	service := serviceConfig(e, []svcGroup{{"db", 0, []int{1, 2}}, {"web", 10, []int{1, 2}}}, `  rollout = { batch_size = 1, canary = { size = 1 } }`)
	action := func(op string) string {
		return fmt.Sprintf("\naction \"gse_process_operation\" \"op\" {\n  config {\n    op      = %q\n    service = gse_service.test\n  }\n}\n", op)
	}
	cli := acctest.NewCLIRun(t, e, strings.TrimPrefix(service, e.ProviderBlock())+action("restart"))
	cli.Must("apply", "-auto-approve", "-no-color")
	pids := map[string]int64{}
	for _, p := range e.Sim.GSE().Processes() {
		pids[p.Name+"@"+p.IP] = p.PID
	}
	var mark, updates int
	acctest.MarkTasks(e.Sim, &mark)()
	updates = e.Sim.Calls("update_proc_info")
	out := cli.Must("apply", "-auto-approve", "-no-color", "-invoke=action.gse_process_operation.op")
	for _, want := range []string{
		"gse_service: tier 1/4 (descending, priority 10, canary), batch 1/1: 1 instances ran, 0 of the 4 failed so far\n",
		"gse_service: tier 2/4 (descending, priority 0, canary), batch 1/1: 1 instances ran",
		"gse_service: the canary passed\n",
		"gse_service: tier 3/4 (descending, priority 10), batch 1/1: 1 instances ran",
		"gse_service: tier 4/4 (descending, priority 0), batch 1/1: 1 instances ran, 0 of the 4 failed so far\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if got, want := taskProcesses(e.Sim, mark, int(gse.OpRestart)), [][]string{{"svc/web"}, {"svc/db"}, {"svc/web"}, {"svc/db"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("restart tasks carried %v, want %v: the canary host's tiers, then the rest's, each in descending priority", got, want)
	}
	for _, p := range e.Sim.GSE().Processes() {
		if p.PID == pids[p.Name+"@"+p.IP] || !p.Running {
			t.Errorf("%s on %s: pid %d (running %t) after the restart, was %d", p.Name, p.IP, p.PID, p.Running, pids[p.Name+"@"+p.IP])
		}
	}
	if n := e.Sim.Calls("update_proc_info") - updates; n != 0 {
		t.Errorf("the restart sent update_proc_info %d times, want 0", n)
	}

	acctest.MarkTasks(e.Sim, &mark)()
	if err := acctest.WriteMain(cli, strings.TrimPrefix(service, e.ProviderBlock())+action("reload")); err != nil {
		t.Fatal(err)
	}
	cli.Must("apply", "-auto-approve", "-no-color", "-invoke=action.gse_process_operation.op")
	if got, want := taskProcesses(e.Sim, mark, int(gse.OpReload)), [][]string{{"svc/db"}, {"svc/web"}, {"svc/db"}, {"svc/web"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("reload tasks carried %v, want %v: ascending priority", got, want)
	}

	if err := acctest.WriteMain(cli, strings.TrimPrefix(service, e.ProviderBlock())+action("stop")); err != nil {
		t.Fatal(err)
	}
	if out, err := cli.Run("apply", "-auto-approve", "-no-color", "-invoke=action.gse_process_operation.op"); err == nil || !regexp.MustCompile(`Operation not available on a service`).MatchString(out) {
		t.Errorf("op stop on a service: %v\n%s", err, out)
	}
	if err := acctest.WriteMain(cli, strings.TrimPrefix(service, e.ProviderBlock())); err != nil {
		t.Fatal(err)
	}
	cli.Must("destroy", "-auto-approve", "-no-color")
	if err := e.CheckSimEmpty(nil); err != nil {
		t.Error(err)
	}
}
