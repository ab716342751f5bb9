package managedprocess_test

import (
	"fmt"
	"maps"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// GSEKit registers its processes with the labels bk_process_name and
// bk_process_id (bk-process-config-manager
// apps/gsekit/pipeline_plugins/components/collections/gse.py,
// BulkGseOperateProcessService._execute). Adopted by a configuration that
// sets no labels, the process keeps them through the adoption's apply and a
// spec change, and each plan after an apply is empty, whether GSE drops the
// labels an update_proc_info leaves out or keeps them, on both paths. Set,
// labels replace the process's; labels = {} removes them on either server.
func TestAccManagedProcess_adoptionKeepsLabels(t *testing.T) {
	t.Parallel()
	for _, m := range acctest.Modes {
		for _, on := range []simulator.LabelsOnUpdate{simulator.LabelsReplaced, simulator.LabelsKept} {
			t.Run(m.Name+"/"+string(on), func(t *testing.T) {
				t.Parallel()
				e := acctest.NewEnvWith(t, m, func(o *simulator.Options) { o.UpdateLabels = on })
				gsekit := map[string]string{"bk_process_name": "proc-test", "bk_process_id": "42"}
				e.Register(t, gse.Meta{Namespace: "gse", Name: "proc-test", Labels: gsekit}, []string{"0:10.0.0.1"}, acctest.OpPtr(gse.OpStart))
				proc := acctest.Proc{Hosts: []string{"0:10.0.0.1"}, Extra: "running = true"}
				cfg := e.Config(proc)
				proc.SetupPath = "/data/gsetest2"
				edited := e.Config(proc)
				proc.Labels = "{}"
				cleared := e.Config(proc)
				proc.Labels = `{ team = "ops" }`
				set := e.Config(proc)
				planned := func(want map[string]string) resource.ConfigPlanChecks {
					return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.Addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("meta").AtMapKey("labels"), labelsValue(want)),
					}}
				}
				step := func(config string, want map[string]string) resource.TestStep {
					return resource.TestStep{Config: config, ConfigPlanChecks: planned(want), Check: e.SimCheck(0, "10.0.0.1", hasLabels(want))}
				}
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: e.Factories(),
					CheckDestroy:             e.CheckSimEmpty,
					Steps: []resource.TestStep{
						{Config: cfg, ResourceName: acctest.Addr, ImportState: true, ImportStateId: "gse/proc-test@0:10.0.0.1", ImportStatePersist: true},
						step(cfg, gsekit),    // the adoption: the spec is sent again, with GSEKit's labels
						step(edited, gsekit), // a spec change
						step(cleared, nil),
						step(set, map[string]string{"team": "ops"}),
					},
				})
			})
		}
	}
}

// labelsValue checks meta.labels: want, or empty for none.
func labelsValue(want map[string]string) knownvalue.Check {
	checks := map[string]knownvalue.Check{}
	for k, v := range want {
		checks[k] = knownvalue.StringExact(v)
	}
	return knownvalue.MapExact(checks)
}

// hasLabels checks the labels GSE holds for the process.
func hasLabels(want map[string]string) func(simulator.Process) error {
	return func(p simulator.Process) error {
		if !maps.Equal(p.Labels, want) {
			return fmt.Errorf("labels %v in GSE, want %v", p.Labels, want)
		}
		return nil
	}
}
