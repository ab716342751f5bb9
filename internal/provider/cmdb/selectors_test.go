package cmdb_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// The generated business of 400 hosts: modules 1001-1004 in sets 101 and
// 102; nginx and agent on every module, legacy on module 1001 alone.

// processesData is a gse_cmdb_processes of business 2 with args.
func processesData(e *acctest.Env, args string) string {
	return e.CMDBConfig(fmt.Sprintf("data \"gse_cmdb_processes\" \"biz\" {\n  bk_biz_id = 2\n  %s\n}\n", args))
}

// hostsData is a gse_cmdb_hosts of business 2 with args.
func hostsData(e *acctest.Env, args string) string {
	return e.CMDBConfig(fmt.Sprintf("data \"gse_cmdb_hosts\" \"biz\" {\n  bk_biz_id = 2\n  %s\n}\n", args))
}

// TestAccCMDBProcesses_typosFail: a selector value that matches no process
// of the business fails the plan naming it, judged against the business
// (set 999 is wrong even though process_names narrows the listing too), a
// misspelled filter field fails naming the field CMDB has, and a selection
// with nothing in it fails although each value matches something.
func TestAccCMDBProcesses_typosFail(t *testing.T) {
	inCMDBModes(t, 400, func(t *testing.T, e *acctest.Env) {
		cases := []acctest.PlanError{
			{Config: processesData(e, `process_names = ["nginx", "ngnix"]`),
				Want: `process_names of business 2 match no process.*process_names: "ngnix" matches nothing: no process of business 2 has the bk_process_name "ngnix".*set allow_empty = true`},
			{Config: processesData(e, `bk_module_ids = [1001, 1099]`), Want: `bk_module_ids: 1099 matches nothing: 1099 is not a module of business 2`},
			{Config: processesData(e, "bk_set_ids = [101, 999]\n  process_names = [\"nginx\"]"), Want: `bk_set_ids: 999 matches nothing: 999 is not a set of business 2`},
			{Config: processesData(e, "service_instance_ids = [42]"), Want: `service_instance_ids: 42 matches nothing`},
			{Config: processesData(e, `filter = { condition = "AND", rules = [{ field = "bk_process_nam", operator = "equal", value = "nginx" }] }`),
				Want: `Unknown process field in filter.*"bk_process_nam" is not a field of CMDB processes in business 2 \(did you mean "bk_process_name"\?\)`},
			// Module 1001 is in set 101, and set 102 has processes: each value matches, the whole does not.
			{Config: processesData(e, "bk_set_ids = [102]\n  bk_module_ids = [1001]"),
				Want: `No processes selected in business 2.*list_process_related_info lists no process for.*set allow_empty = true`},
			// legacy's start command needs GSEKit's database: every instance is skipped.
			{Config: processesData(e, `process_names = ["legacy"]`),
				Want: `No processes selected in business 2.*Every one of the 100 process instances selected is in skipped`},
		}
		for i := range cases {
			cases[i].Want = "(?s)" + acctest.WrappedPattern(cases[i].Want)
		}
		e.ExpectPlanErrors(t, cases)
	})
}

// TestAccCMDBProcesses_selectorsJudgedAgainstBusiness: module 1001 is not
// in set 102, but set 102 holds processes, so bk_set_ids = [101, 102] with
// bk_module_ids = [1001] is no typo; and allow_empty takes a module that
// matches nothing, and an empty selection, as warnings.
func TestAccCMDBProcesses_selectorsJudgedAgainstBusiness(t *testing.T) {
	inCMDBModes(t, 400, func(t *testing.T, e *acctest.Env) {
		cfg := e.CMDBConfig(`
data "gse_cmdb_processes" "module" {
  bk_biz_id     = 2
  bk_set_ids    = [101, 102]
  bk_module_ids = [1001]
}
data "gse_cmdb_processes" "emptied" {
  bk_biz_id     = 2
  bk_module_ids = [1002, 1099]
  process_names = ["nginx"]
  allow_empty   = true
}
data "gse_cmdb_processes" "none" {
  bk_biz_id     = 2
  bk_set_ids    = [102]
  bk_module_ids = [1001]
  allow_empty   = true
}
`)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					// nginx_1, nginx_2 and agent_1 (legacy is skipped).
					statecheck.ExpectKnownValue("data.gse_cmdb_processes.module", tfjsonpath.New("groups"), knownvalue.MapSizeExact(3)),
					// nginx's 2 instances on module 1002's 100 hosts, less those without an address in the mode.
					statecheck.ExpectKnownValue("data.gse_cmdb_processes.emptied", tfjsonpath.New("processes"), knownvalue.ListSizeExact(map[bool]int{false: 194, true: 198}[e.Gateway])),
					statecheck.ExpectKnownValue("data.gse_cmdb_processes.none", tfjsonpath.New("groups"), knownvalue.MapSizeExact(0)),
				},
			}},
		})
	})
}

// TestAccCMDBHosts_typosFail: a set or module id that is not one of the
// business's, a misspelled host field, and a selection with no host fail
// the plan; a custom field of the business (rack_unit) is no typo.
func TestAccCMDBHosts_typosFail(t *testing.T) {
	inCMDBModes(t, 400, func(t *testing.T, e *acctest.Env) {
		cases := []acctest.PlanError{
			{Config: hostsData(e, `bk_module_ids = [1001, 1099]`),
				Want: `bk_module_ids of business 2 match no host.*bk_module_ids: 1099 matches nothing: 1099 is not a module of business 2`},
			{Config: hostsData(e, "bk_set_ids = [999, 101]\n  bk_module_ids = [1001]"), Want: `bk_set_ids: 999 matches nothing: 999 is not a set of business 2`},
			{Config: hostsData(e, `filter = { condition = "AND", rules = [{ field = "bk_os_tpye", operator = "equal", value = "2" }] }`),
				Want: `Unknown host field in filter.*"bk_os_tpye" is not a field of CMDB hosts in business 2 \(did you mean "bk_os_type"\?\)`},
			{Config: hostsData(e, `filter = { condition = "AND", rules = [{ field = "rack_unti", operator = "equal", number = 2 }] }`),
				Want: `"rack_unti" is not a field of CMDB hosts in business 2 \(did you mean "rack_unit"\?\)`},
			{Config: hostsData(e, `filter = { condition = "AND", rules = [{ field = "bk_host_name", operator = "equal", value = "nope" }] }`),
				Want: `No hosts selected in business 2.*list_biz_hosts lists no host`},
		}
		for i := range cases {
			cases[i].Want = "(?s)" + acctest.WrappedPattern(cases[i].Want)
		}
		e.ExpectPlanErrors(t, cases)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{{
				Config: hostsData(e, "bk_module_ids = [1001, 1099]\n  allow_empty = true\n"+
					`filter = { condition = "AND", rules = [{ field = "rack_unit", operator = "equal", number = 2 }] }`),
				ConfigStateChecks: []statecheck.StateCheck{
					// rack_unit is id%42+1: hosts 1 and 43 and 85 of module 1001.
					statecheck.ExpectKnownValue("data.gse_cmdb_hosts.biz", tfjsonpath.New("bk_host_ids"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.Int64Exact(1), knownvalue.Int64Exact(43), knownvalue.Int64Exact(85)})),
				},
			}},
		})
	})
}

// TestAccCMDBHosts_customFieldUnchecked: a field that is not CMDB's own
// needs search_object_attribute; when it fails, the plan fails saying so,
// never listing with a field nobody checked.
func TestAccCMDBHosts_customFieldUnchecked(t *testing.T) {
	inCMDBModes(t, 100, func(t *testing.T, e *acctest.Env) {
		e.Sim.AddFault(simulator.Fault{API: "cc/search_object_attribute", Code: 1199998, Times: simulator.Forever})
		e.ExpectPlanErrors(t, []acctest.PlanError{{
			Config: hostsData(e, `filter = { condition = "AND", rules = [{ field = "rack_unit", operator = "equal", number = 2 }] }`),
			Want:   "(?s)" + acctest.WrappedPattern(`Could not check the host fields of filter \(business 2\).*Grant the app search_object_attribute`),
		}})
		if n := e.Sim.Calls("cc/list_biz_hosts"); n != 0 {
			t.Errorf("list_biz_hosts called %d times with an unchecked filter field", n)
		}
	})
}

// TestAccCMDBProcesses_emptiedModule: a module whose hosts all moved out is
// still a module of the business, and holds no process: naming it fails
// saying so, allow_empty reads the others with a warning.
func TestAccCMDBProcesses_emptiedModule(t *testing.T) {
	inCMDBModes(t, 400, func(t *testing.T, e *acctest.Env) {
		for id := int64(301); id <= 400; id++ { // module 1004's hosts
			if err := e.Sim.CMDB().MoveHost(id, 1003); err != nil {
				t.Fatal(err)
			}
		}
		e.ExpectPlanErrors(t, []acctest.PlanError{{
			Config: processesData(e, `bk_module_ids = [1001, 1004]`),
			Want:   "(?s)" + acctest.WrappedPattern(`bk_module_ids: 1004 matches nothing: module 1004 of business 2 holds no process.*set allow_empty = true`),
		}})
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{{
				Config: processesData(e, "bk_module_ids = [1003, 1004]\n  process_names = [\"nginx\"]\n  allow_empty = true"),
				ConfigStateChecks: []statecheck.StateCheck{
					// nginx's 2 instances on the 200 hosts module 1003 holds now, less those without an address in the mode.
					statecheck.ExpectKnownValue("data.gse_cmdb_processes.biz", tfjsonpath.New("processes"), knownvalue.ListSizeExact(map[bool]int{false: 388, true: 396}[e.Gateway])),
				},
			}},
		})
	})
}
