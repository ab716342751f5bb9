package managedprocess_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// expectNoDrift fails when the refresh before a plan changed any resource:
// what `terraform plan -refresh-only` would report as changed outside Terraform.
type expectNoDrift struct{}

func (expectNoDrift) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, d := range req.Plan.ResourceDrift {
		before, _ := d.Change.Before.(map[string]any)
		after, _ := d.Change.After.(map[string]any)
		resp.Error = fmt.Errorf("%s changed outside Terraform; host_status %v -> %v", d.Address, before["host_status"], after["host_status"])
		return
	}
}

// Right after a create and after an update, a refresh finds nothing changed:
// the apply read the status of the hosts it touched, so host_status holds
// what the refresh reads.
func TestAccManagedProcess_noDriftAfterApply(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		step := func(p acctest.Proc, preApply ...plancheck.PlanCheck) resource.TestStep {
			return resource.TestStep{
				Config: e.Config(p),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             preApply,
					PostApplyPostRefresh: []plancheck.PlanCheck{expectNoDrift{}, plancheck.ExpectEmptyPlan()},
				},
			}
		}
		status := func(host, fact string) tfjsonpath.Path {
			return tfjsonpath.New("host_status").AtMapKey(host).AtMapKey(fact)
		}
		refresh := resource.TestStep{RefreshState: true, RefreshPlanChecks: resource.RefreshPlanChecks{
			PostRefresh: []plancheck.PlanCheck{expectNoDrift{}, plancheck.ExpectEmptyPlan()},
		}}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				step(acctest.Proc{Hosts: []string{"0:10.0.0.1", "0:10.0.0.2"}, Extra: "running = true"}),
				refresh,
				// A spec change (update_proc_info, hosted again), a host leaves, one joins: the kept
				// host's facts stay known in the plan (hosting a hosted process changes none), the
				// new host's are read after the apply.
				step(acctest.Proc{Hosts: []string{"0:10.0.0.2", "1:10.0.0.3"}, SetupPath: "/data/gsetest2", Extra: "running = true"},
					plancheck.ExpectKnownValue(acctest.Addr, status("0:10.0.0.2", "status"), knownvalue.StringExact("running")),
					plancheck.ExpectKnownValue(acctest.Addr, status("0:10.0.0.2", "managed"), knownvalue.Bool(true)),
					plancheck.ExpectUnknownValue(acctest.Addr, status("1:10.0.0.3", "status"))),
				refresh,
				// Only a spec field changes: no fact of any host is unknown.
				step(acctest.Proc{Hosts: []string{"0:10.0.0.2", "1:10.0.0.3"}, SetupPath: "/data/gsetest3", Extra: "running = true"},
					plancheck.ExpectKnownValue(acctest.Addr, status("0:10.0.0.2", "managed"), knownvalue.Bool(true)),
					plancheck.ExpectKnownValue(acctest.Addr, status("1:10.0.0.3", "status"), knownvalue.StringExact("running"))),
				refresh,
				// A restart trigger: every host's facts may change.
				step(acctest.Proc{Hosts: []string{"0:10.0.0.2", "1:10.0.0.3"}, SetupPath: "/data/gsetest3", Extra: "running = true\n restart_triggers = { v = \"1\" }"},
					plancheck.ExpectUnknownValue(acctest.Addr, status("0:10.0.0.2", "status")),
					plancheck.ExpectUnknownValue(acctest.Addr, status("1:10.0.0.3", "managed"))),
				refresh,
				// Hosted, run state left alone: hosting proves no status, the read does.
				step(acctest.Proc{Hosts: []string{"0:10.0.0.2", "1:10.0.0.3"}, SetupPath: "/data/gsetest4"}),
				refresh,
			},
		})
	})
}

// The nightly drift job: `plan -refresh-only -detailed-exitcode` exits 0 right
// after an apply and after `apply -refresh-only`, and 2 once something did
// change outside Terraform. Terraform 1.10 to 1.14 exited 2 on every such run
// while printing "No changes" (see package packed: numbers as text on refresh).
func TestAccManagedProcess_refreshOnlyExitCode(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := strings.TrimPrefix(e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "1:10.0.0.2"}, Extra: "running = true"}), e.ProviderBlock())
		cli := acctest.NewCLIRunFrom(t, e, "1.0.0", cfg)
		drift := func() {
			t.Helper()
			out, code, _ := cli.Exit("plan", "-refresh-only", "-detailed-exitcode", "-no-color", "-input=false")
			if code == 0 {
				t.Fatalf("plan -refresh-only -detailed-exitcode after an out-of-band stop: exit 0, want 2\n%s", out)
			}
		}
		noDrift := func(after string) {
			t.Helper()
			if out, code, _ := cli.Exit("plan", "-refresh-only", "-detailed-exitcode", "-no-color", "-input=false"); code != 0 {
				t.Fatalf("plan -refresh-only -detailed-exitcode after %s: exit %d, want 0\n%s", after, code, out)
			}
		}
		if out, err := cli.Run("apply", "-auto-approve", "-no-color", "-input=false"); err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		noDrift("apply")
		if out, err := cli.Run("apply", "-refresh-only", "-auto-approve", "-no-color", "-input=false"); err != nil {
			t.Fatalf("apply -refresh-only: %v\n%s", err, out)
		}
		noDrift("apply -refresh-only")
		noDrift("a refresh-only plan") // and again: nothing accumulates
		if err := e.Sim.GSE().Drift(simulator.DriftStop, "gse", "proc-test", 0, "10.0.0.1"); err != nil {
			t.Fatal(err)
		}
		drift()
		if out, err := cli.Run("destroy", "-auto-approve", "-no-color", "-input=false"); err != nil {
			t.Fatalf("destroy: %v\n%s", err, out)
		}
	})
}

// A refresh while the installation throttles every status read forever ends
// at the read timeout, with an error naming the throttle and the API, and
// leaves the state as it was.
func TestAccManagedProcess_throttledRefreshEndsAtReadTimeout(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "1:10.0.0.2"}, Extra: `running = true
  timeouts = { read = "2s" }`})
		throttle := simulator.Fault{API: "get_proc_status_v2", Code: gse.CodeESBRateLimited, Message: "Request rate exceeds the limit of the app", Times: simulator.Forever}
		if e.Gateway {
			throttle.Code, throttle.HTTPStatus = 0, 429
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: cfg},
				{
					PreConfig:    func() { e.Sim.AddFault(throttle) },
					RefreshState: true,
					ExpectError: wordsRegexp("Could not read process gse/proc-test", "context deadline exceeded while the installation was throttling the calls",
						"get_proc_status_v2", "raise the timeout"),
				},
				{
					// Nothing was lost: the state still has both hosts, and nothing is planned.
					PreConfig:        e.Sim.ClearFaults,
					Config:           cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("host_status"), knownvalue.MapSizeExact(2)),
						statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("hosts"), knownvalue.ListSizeExact(2)),
					},
				},
			},
		})
	})
}

// The same for the gse_process_status data source.
func TestAccProcessStatus_throttledReadEndsAtReadTimeout(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	e.Sim.AddFault(simulator.Fault{API: "get_proc_status_v2", Code: gse.CodeESBRateLimited, Message: "Request rate exceeds the limit of the app", Times: simulator.Forever})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		Steps: []resource.TestStep{{
			Config: e.ProviderBlock() + `
data "gse_process_status" "s" {
  meta     = { namespace = "gse", name = "proc-test" }
  hosts    = [{ ip = "10.0.0.1", bk_cloud_id = 0 }]
  timeouts = { read = "2s" }
}`,
			ExpectError: wordsRegexp("Could not read the status of process gse/proc-test", "throttling the calls", "get_proc_status_v2"),
		}},
	})
}
