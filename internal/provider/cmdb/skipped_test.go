package cmdb_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// skippedCheck checks that data.gse_cmdb_processes.biz's skipped holds n
// instances of alias on host (0: any host) whose reason matches.
type skippedCheck struct {
	alias  string
	host   int
	n      int
	reason *regexp.Regexp
}

func (c skippedCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	var skipped []any
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address == "data.gse_cmdb_processes.biz" {
			skipped, _ = r.AttributeValues["skipped"].([]any)
		}
	}
	n := 0
	var seen []string
	for _, el := range skipped {
		m, _ := el.(map[string]any)
		if m["bk_process_name"] != c.alias || (c.host != 0 && fmt.Sprint(m["bk_host_id"]) != fmt.Sprint(c.host)) {
			continue
		}
		reason, _ := m["reason"].(string)
		seen = append(seen, reason)
		if c.reason.MatchString(reason) {
			n++
		}
	}
	if n != c.n {
		resp.Error = fmt.Errorf("%d instances of %s skipped with a reason matching %q, want %d; reasons: %q", n, c.alias, c.reason, c.n, seen)
	}
}

// TestAccCMDBProcesses_gsekitRules: what GSEKit or gse_managed_process
// refuses of a business is skipped, naming the field and the rule, and the
// rest is applied: an alias with a space, the same alias twice on a host in
// two modules (both skipped, as GSEKit's DuplicateProcessInstException), a
// leading-zero integer Mako refuses; a process without stop_cmd is started
// and hosted, a null priority is 0, and a restart trigger on a process
// whose restart_cmd is empty fails the plan naming the process and the field.
func TestAccCMDBProcesses_gsekitRules(t *testing.T) {
	inCMDBModes(t, 200, func(t *testing.T, e *acctest.Env) {
		usable := map[bool]int{false: 194, true: 198}[e.Gateway] // as in TestAccCMDBProcesses_forEach
		cmdb := e.Sim.CMDB()
		for id, fields := range map[int64]map[string]any{
			1: {"stop_cmd": nil, "priority": nil},
			2: {"bk_process_name": "api v2"},
			3: {"start_cmd": "./run.sh -p ${local_inst_id + 010}"},
		} {
			if err := cmdb.EditProcessTemplate(id, fields); err != nil {
				t.Fatal(err)
			}
		}
		if err := cmdb.AddHostToModule(1, simulator.CMDBModuleID(1)); err != nil { // host 1 runs nginx in modules 1001 and 1002
			t.Fatal(err)
		}
		ds := "data.gse_cmdb_processes.biz"
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{
				{
					Config: processesConfig(e, ""),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(ds, tfjsonpath.New("groups"), knownvalue.MapSizeExact(2)),
						statecheck.ExpectKnownValue(ds, tfjsonpath.New("groups").AtMapKey("GSEKIT_BIZ_2/nginx_1").AtMapKey("priority"), knownvalue.Int64Exact(0)),
						statecheck.ExpectKnownValue(ds, tfjsonpath.New("groups").AtMapKey("GSEKIT_BIZ_2/nginx_1").AtMapKey("spec").AtMapKey("control").AtMapKey("stop_cmd"), knownvalue.Null()),
						skippedCheck{"api v2", 5, 1, regexp.MustCompile(`^bk_process_name "api v2": gse_managed_process refuses meta\.name "api v2_1": it must be non-empty and hold none of ':', '/', '@', ',' or whitespace$`)},
						// Both nginx processes of host 1, each of its two instances.
						skippedCheck{"nginx", 1, 4, regexp.MustCompile(`^bk_process_id 100001 and 1000100001 run the same alias as the same instance on one host \(GSEKit's key 10\.0\.0\.1-0-nginx-[12]\): GSEKit refuses them all \(DuplicateProcessInstException\)$`)},
						skippedCheck{"legacy", 1, 1, regexp.MustCompile(`^start_cmd holds \$\{local_inst_id \+ 010\}: 010 has a leading zero, which Python 3 refuses`)},
						acctest.SimState(func() error {
							for name, want := range map[string]int{"nginx_1": usable - 1, "nginx_2": usable - 1, "api v2_1": 0, "legacy_1": 0} {
								if n := running(e, name); n != want {
									return fmt.Errorf("%s runs on %d hosts, want %d", name, n, want)
								}
							}
							return nil
						}),
					},
					ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				},
				{
					// nginx has no restart_cmd: a restart trigger fails at plan, not on each host at apply.
					Config:      acctest.Edited(t, processesConfig(e, ""), "running  = true", "running  = true\n  restart_triggers = { conf = \"v2\" }"),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`(?s)restart_triggers needs spec\.control\.restart_cmd.*` + acctest.WrappedText("restart_triggers restart process GSEKIT_BIZ_2/nginx_1 (op_type 7) when they change, with spec.control.restart_cmd on every host, and it is empty")),
				},
				{Config: e.CMDBConfig(""), ConfigStateChecks: []statecheck.StateCheck{acctest.SimState(func() error { return e.CheckSimEmpty(nil) })}},
			},
		})
	})
}
