package managedprocess_test

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// expectImported checks the plan of an identity import: the identity
// imported, and the imported object (change.before) holding hosts
// ("cloud:ip" or "agent:{agent_id}", any order), the labels and a null spec.
type expectImported struct {
	addr     string
	identity map[string]any
	hosts    []string
	labels   any // map[string]any, or nil
}

func (c expectImported) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr {
			continue
		}
		ch := rc.Change
		if ch.Importing == nil || fmt.Sprint(ch.Importing.Identity) != fmt.Sprint(c.identity) {
			resp.Error = fmt.Errorf("%s: importing %+v, want identity %v", c.addr, ch.Importing, c.identity)
			return
		}
		before, _ := ch.Before.(map[string]any)
		var got []string
		hosts, _ := before["hosts"].([]any)
		for _, h := range hosts {
			m, _ := h.(map[string]any)
			if id, ok := m["agent_id"].(string); ok {
				got = append(got, "agent:"+id)
				continue
			}
			got = append(got, fmt.Sprintf("%v:%v", m["bk_cloud_id"], m["ip"]))
		}
		sort.Strings(got)
		want := append([]string(nil), c.hosts...)
		sort.Strings(want)
		meta, _ := before["meta"].(map[string]any)
		switch {
		case strings.Join(got, ",") != strings.Join(want, ","):
			resp.Error = fmt.Errorf("%s: imported hosts %v, want %v", c.addr, got, want)
		case fmt.Sprint(meta["labels"]) != fmt.Sprint(c.labels):
			resp.Error = fmt.Errorf("%s: imported labels %v, want %v", c.addr, meta["labels"], c.labels)
		case before["spec"] != nil:
			resp.Error = fmt.Errorf("%s: imported spec %v, want null (GSE cannot return it)", c.addr, before["spec"])
		}
		return
	}
	resp.Error = fmt.Errorf("no change of %s in the plan", c.addr)
}

// A process created by Terraform has the identity { namespace, name }; an
// import block with that identity finds its hosts (cloud ids included) and
// nothing of the processes around it.
func TestAccManagedProcess_identityImport(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "1:10.0.0.2"}, Labels: `{ team = "ops" }`, Extra: "running = true"})
		resource.Test(t, resource.TestCase{
			TerraformVersionChecks:   acctest.TF114Versions,
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckOnlyLeft("gse/proc-other", "other/proc-test"),
			Steps: []resource.TestStep{
				{
					PreConfig: func() {
						e.Register(t, gse.Meta{Namespace: "gse", Name: "proc-other"}, []string{"0:10.0.0.1", "0:10.0.0.3"}, nil)
						e.Register(t, gse.Meta{Namespace: "other", Name: "proc-test"}, []string{"0:10.0.0.4"}, nil)
					},
					Config: cfg,
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectIdentity(acctest.Addr, map[string]knownvalue.Check{
							"namespace": knownvalue.StringExact("gse"), "name": knownvalue.StringExact("proc-test"),
						}),
					},
				},
				{
					ResourceName:       acctest.Addr,
					ImportState:        true,
					ImportStateKind:    resource.ImportBlockWithResourceIdentity,
					ExpectNonEmptyPlan: true, // the spec, which GSE cannot return, is sent again
					ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.Addr, plancheck.ResourceActionUpdate),
						expectImported{addr: acctest.Addr, identity: map[string]any{"namespace": "gse", "name": "proc-test"},
							hosts: []string{"0:10.0.0.1", "1:10.0.0.2"}, labels: map[string]any{"team": "ops"}},
					}},
				},
				{
					// The string import ID still works, and sets the identity.
					ResourceName:            acctest.Addr,
					ImportState:             true,
					ImportStateKind:         resource.ImportCommandWithID,
					ImportStateId:           "gse/proc-test@0:0:10.0.0.1,1:0:10.0.0.2",
					ImportStateVerify:       true,
					ImportStateVerifyIgnore: []string{"spec", "running", "restart_triggers", "reload_triggers", "timeouts"},
				},
			},
		})
		if e.Sim.Calls("sync_proc_status") == 0 {
			t.Fatal("the identity import never listed the namespace with sync_proc_status")
		}
	})
}

// An import block with an identity adopts a process registered outside
// Terraform: the plan shows the hosts found, apply sends the spec, and the
// next plan is empty. A process GSE does not have fails the plan.
func TestAccManagedProcess_identityImportBlock(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		importBlock := func(name string) string {
			return fmt.Sprintf(`
import {
  to       = gse_managed_process.test
  identity = { namespace = "gse", name = %q }
}
`, name)
		}
		cfg := e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "0:10.0.0.2", "2:10.0.0.1"}, Extra: "running = true"})
		resource.Test(t, resource.TestCase{
			TerraformVersionChecks:   acctest.TF114Versions,
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{
					Config:      cfg + importBlock("absent"),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`Process gse/absent not found`),
				},
				{
					Config:      cfg + importBlock("bad/name"),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`identity\.name must be non-empty and hold none of ':', '/'`),
				},
				{
					PreConfig: func() {
						e.Register(t, gse.Meta{Namespace: "gse", Name: "proc-test"}, []string{"0:10.0.0.1", "0:10.0.0.2", "2:10.0.0.1"}, acctest.OpPtr(gse.OpHost))
					},
					Config: cfg + importBlock("proc-test"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.Addr, plancheck.ResourceActionUpdate),
						expectImported{addr: acctest.Addr, identity: map[string]any{"namespace": "gse", "name": "proc-test"},
							hosts: []string{"0:10.0.0.1", "0:10.0.0.2", "2:10.0.0.1"}, labels: nil},
					}},
					Check: resource.ComposeAggregateTestCheckFunc(
						e.SimCheck(0, "10.0.0.1", func(p simulator.Process) error {
							if specField(p, "setup_path") != "/data/gsetest" {
								return fmt.Errorf("the spec was not sent after import: %s", p.Spec)
							}
							return acctest.HostedAndRunning(p)
						}),
						e.SimCheck(2, "10.0.0.1", acctest.HostedAndRunning),
					),
				},
				{Config: cfg + importBlock("proc-test"), PlanOnly: true},
			},
		})
	})
}
