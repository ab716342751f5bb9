package managedprocess_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/managedprocess"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// countConfig is e.config's process declared n times (proc-0, proc-1, ...),
// with providerArgs added to the provider block.
func countConfig(e *acctest.Env, n int, providerArgs string, p acctest.Proc) string {
	cfg := e.Config(p)
	cfg = strings.Replace(cfg, `username   = "admin"`, `username   = "admin"`+"\n  "+providerArgs, 1)
	cfg = strings.Replace(cfg, `resource "gse_managed_process" "test" {`, fmt.Sprintf(`resource "gse_managed_process" "test" {
  count = %d`, n), 1)
	return strings.Replace(cfg, `name = "proc-test"`, `name = "proc-${count.index}"`, 1)
}

// wordsRegexp matches words in order, wherever Terraform wraps the lines between them.
func wordsRegexp(phrases ...string) *regexp.Regexp {
	var parts []string
	for _, p := range phrases {
		parts = append(parts, strings.Join(strings.Fields(regexp.QuoteMeta(p)), `\s+`))
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, `.*`))
}

// checkAllRunning asserts that n processes proc-0... are registered and running.
func checkAllRunning(e *acctest.Env, n int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ps := e.Sim.GSE().Processes()
		if len(ps) != n {
			return fmt.Errorf("%d processes registered, want %d", len(ps), n)
		}
		for _, p := range ps {
			if !p.Running {
				return fmt.Errorf("%s/%s on %s is not running", p.Namespace, p.Name, p.IP)
			}
		}
		return nil
	}
}

// An installation refusing the app's requests for its quota slows the
// provider down and fails nothing, even with no retry allowed for faults.
func TestAccManagedProcess_throttledApplySucceeds(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		e.Sim.SetQuota(4, 1)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{{
				Config: countConfig(e, 4, "max_retries = 0", acctest.Proc{Hosts: []string{"0:10.0.0.1"}, Extra: "running = true"}),
				Check: resource.ComposeTestCheckFunc(checkAllRunning(e, 4), func(*terraform.State) error {
					if n := e.Sim.AllCalls()[simulator.RateLimitedKey]; n == 0 {
						return fmt.Errorf("the simulator refused no request: the test proves nothing")
					}
					return nil
				}),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			}},
		})
	})
}

// When the timeout passes while the installation refuses every request, the
// error says it throttled the calls, with the code and how often, and what to do.
func TestAccManagedProcess_deadlineWhileThrottled(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	e.Sim.AddFault(simulator.Fault{API: "register_proc_info", Code: gse.CodeESBRateLimited, Message: "Request rate exceeds the limit of the app", Times: simulator.Forever})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{{
			Config: e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1"}, Extra: `timeouts = { create = "2s" }`}),
			ExpectError: wordsRegexp("Could not create process gse/proc-test", "context deadline exceeded while the installation was throttling the calls",
				"requests sent in", "for the app's rate limit (code 1306429)", "Request rate exceeds the limit of the app",
				"Run fewer Terraform runs", "set rate_limit (or GSE_RATE_LIMIT)", "raise the timeout"),
		}},
	})
	if n := e.Sim.Calls("register_proc_info"); n < 2 {
		t.Fatalf("register_proc_info sent %d times: the refusals were not retried until the deadline", n)
	}
}

// An ESB without operate_proc_multi: create, change and destroy work with
// single operate_proc_v2 tasks.
func TestAccManagedProcess_withoutOperateProcMulti(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	e.Sim.RemoveAPIs("operate_proc_multi")
	// A fast fixed rate, so that the creates reach the batcher together and a batch is tried.
	cfg := func(extra string) string {
		return countConfig(e, 3, "rate_limit = 1000", acctest.Proc{Hosts: []string{"0:10.0.0.1"}, Extra: extra})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				Config:           cfg("running = true"),
				Check:            checkAllRunning(e, 3),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				Config: cfg("running = false\n  managed = false"),
				Check: func(*terraform.State) error {
					for _, p := range e.Sim.GSE().Processes() {
						if p.Running || p.Hosted {
							return fmt.Errorf("%s is still running or hosted", p.Name)
						}
					}
					if e.Sim.Calls("operate_proc_multi") == 0 {
						return fmt.Errorf("no batch was tried: the fallback was not exercised")
					}
					return nil
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}

// Without sync_proc_status, import by identity fails naming the API and
// the alternative, import by ID; nothing is imported. (Listing with terraform
// query fails alike: see TestDiscoverWithoutSyncProcStatus.)
func TestAccManagedProcess_identityImportWithoutSyncProcStatus(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		e.Sim.RemoveAPIs("sync_proc_status")
		e.Register(t, gse.Meta{Namespace: "gse", Name: "proc-test"}, []string{"0:10.0.0.1"}, nil)
		resource.Test(t, resource.TestCase{
			TerraformVersionChecks:   acctest.TF114Versions,
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{{
				Config: e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1"}}) + `
import {
  to       = gse_managed_process.test
  identity = { namespace = "gse", name = "proc-test" }
}
`,
				PlanOnly:    true,
				ExpectError: wordsRegexp("Could not discover the hosts of process gse/proc-test", "sync_proc_status", "This installation has no sync_proc_status", "Import by ID instead"),
			}},
		})
	})
}

// The list resource and import by identity share discoverProcesses: without
// sync_proc_status, its error is advised on with the API and import by ID.
func TestDiscoverWithoutSyncProcStatus(t *testing.T) {
	t.Parallel()
	for _, gateway := range []bool{false, true} {
		e := acctest.NewEnvIn(t, acctest.Modes[map[bool]int{false: 0, true: 1}[gateway]])
		e.Sim.RemoveAPIs("sync_proc_status")
		_, err := managedprocess.DiscoverProcesses(context.Background(), e.Client(t), "gse", func(gse.Meta) bool { return true })
		var diags diag.Diagnostics
		managedprocess.AddDiscoverError(&diags, "list", managedprocess.NamespaceTarget("gse"), err, "")
		if !diags.HasError() || !wordsRegexp("sync_proc_status", "This installation has no sync_proc_status", "terraform import gse_managed_process.NAME").MatchString(diags[0].Detail()) {
			t.Errorf("gateway %v: %v", gateway, diags)
		}
	}
}

// With the app's quota spent, creates that run out of time say why: the
// rate limit, with the refused count and code, not the agents; and a create
// whose operation was never sent leaves nothing in the state: every resource
// in the state had a request for it reach GSE (one in flight at the deadline
// may have acted, even if GSE then refused it), and every process in GSE has
// its resource in the state.
func TestAccManagedProcess_quotaSpent(t *testing.T) {
	t.Parallel()
	for _, m := range acctest.Modes {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			quotaSpent(t, acctest.NewEnvWith(t, m, func(o *simulator.Options) { o.RecordRequests = true }))
		})
	}
}

func quotaSpent(t *testing.T, e *acctest.Env) {
	e.AdaptiveRate = true
	e.Sim.SetQuota(2, 2)
	cfg := countConfig(e, 12, "", acctest.Proc{Hosts: []string{"0:10.0.0.1"}, Extra: "running = true\n  timeouts = { create = \"3s\" }"})
	cli := acctest.NewCLIRunFrom(t, e, "1.0.0", cfg[strings.Index(cfg, "resource "):])
	out, err := cli.Run("apply", "-auto-approve", "-no-color", "-input=false")
	if err == nil {
		t.Fatalf("apply on a spent quota succeeded: the test proves nothing\n%s", out)
	}
	if !wordsRegexp("for the app's rate limit (code").MatchString(out) || !wordsRegexp("Run fewer Terraform runs").MatchString(out) {
		t.Errorf("no error names the rate limit:\n%s", out)
	}
	if strings.Contains(out, "check the GSE agent") {
		t.Errorf("an error blames the agents for the rate limit:\n%s", out)
	}
	list := cli.Must("state", "list")
	inState := map[string]bool{}
	for _, addr := range strings.Fields(list) {
		show, _ := cli.Run("state", "show", "-no-color", addr)
		if i := strings.Index(show, `name      = "proc-`); i >= 0 {
			inState[strings.Trim(strings.Fields(show[i:])[2], `"`)] = true
		}
	}
	inGSE, reached := map[string]bool{}, map[string]bool{}
	for _, p := range e.Sim.GSE().Processes() {
		inGSE[p.Name] = true
	}
	nameRE := regexp.MustCompile(`"name":"(proc-\d+)"`)
	for _, r := range e.Sim.Requests() {
		if !strings.Contains(r.Path, "register_proc_info") && !strings.Contains(r.Path, "operate_proc") {
			continue // reads create nothing
		}
		for _, m := range nameRE.FindAllSubmatch(r.Body, -1) {
			reached[string(m[1])] = true
		}
	}
	for name := range inState {
		if !reached[name] {
			t.Errorf("%s is in the state, but no request that could create it ever reached GSE", name)
		}
	}
	for name := range inGSE {
		if !inState[name] {
			t.Errorf("%s exists in GSE, but not in the state", name)
		}
	}
	e.Sim.SetQuota(0, 0)
	cli.Must("destroy", "-auto-approve", "-no-color", "-input=false")
}
