package cmdb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/cmdb"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// inCMDBModes is acctest.InModes over a simulator with n CMDB hosts.
func inCMDBModes(t *testing.T, n int, test func(t *testing.T, e *acctest.Env)) {
	for _, m := range acctest.Modes {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			test(t, acctest.NewEnvWith(t, m, func(o *simulator.Options) { o.CMDBHosts, o.RecordRequests = n, true }))
		})
	}
}

// managedOn is e.config's gse_managed_process with hosts from expr.
func managedOn(e *acctest.Env, t *testing.T, expr, extra string) string {
	return acctest.Edited(t, e.Config(acctest.Proc{Extra: extra}), "hosts = []", "hosts = "+expr)
}

// TestAccCMDBHosts_fleet feeds gse_cmdb_hosts, paged past 1,000 hosts and
// filtered, into the three resources: hosts with two IPv4 addresses use the
// first, IPv6-only ones only through the gateway, hosts without an address
// never.
func TestAccCMDBHosts_fleet(t *testing.T) {
	inCMDBModes(t, 1200, func(t *testing.T, e *acctest.Env) {
		const fleet = "data.gse_cmdb_hosts.fleet"
		// 1200 hosts: 24 IPv6-only (i%50 == 25), 12 without address (i%100 == 99).
		count, skipped, second := "1164", 36, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"ip": knownvalue.StringExact("10.0.0.2"), "bk_cloud_id": knownvalue.Int64Exact(0), "bk_supplier_id": knownvalue.Int64Exact(0), "agent_id": knownvalue.Null(),
		})
		ipv6 := e.SimAbsent(0, "fd00::19")
		if e.Gateway {
			count, skipped, second = "1188", 12, knownvalue.ObjectExact(map[string]knownvalue.Check{
				"ip": knownvalue.Null(), "bk_cloud_id": knownvalue.Null(), "bk_supplier_id": knownvalue.Int64Exact(0), "agent_id": knownvalue.StringExact(cmdb.CMDBAgent(2)),
			})
			ipv6 = e.SimCheck(0, "fd00::19", acctest.HostedAndRunning)
		}
		cfg := e.CMDBConfig(`
data "gse_cmdb_hosts" "fleet" { bk_biz_id = 2 }
data "gse_cmdb_hosts" "set" {
  bk_biz_id  = 2
  bk_set_ids = [101]
}
data "gse_cmdb_hosts" "windows" {
  bk_biz_id     = 2
  bk_module_ids = [1001]
  filter = {
    condition = "AND"
    rules = [
      { field = "bk_os_type", operator = "equal", value = "2" },
      { condition = "OR", rules = [{ field = "bk_host_id", operator = "less", value = "50" }, { field = "bk_host_id", operator = "in", values = ["70", "77"] }] },
    ]
  }
}
resource "gse_process_operation" "restart" {
  op = "restart"
  gse = {
    meta  = { namespace = "gse", name = gse_managed_process.test.meta.name }
    hosts = data.gse_cmdb_hosts.windows.hosts
    spec  = gse_managed_process.test.spec
  }
}
`) + managedOn(e, t, fleet+".hosts", "running = true") + acctest.Edited(t, e.JobConfig("./nginx"), "ip_list                = []", "ip_list = data.gse_cmdb_hosts.set.ip_list")
		cfg = strings.Replace(cfg, e.ProviderBlock(), "", 2) // e.config and acctest.Env.JobConfig bring their own
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(fleet, tfjsonpath.New("hosts").AtSliceIndex(1), second),
					statecheck.ExpectKnownValue(fleet, tfjsonpath.New("skipped_host_ids"), knownvalue.ListSizeExact(skipped)),
					statecheck.ExpectKnownValue(fleet, tfjsonpath.New("skipped_host_ids").AtSliceIndex(skipped-1), knownvalue.Int64Exact(1199)),
					statecheck.ExpectKnownValue(fleet, tfjsonpath.New("ip_list"), knownvalue.ListSizeExact(1188)),
					statecheck.ExpectKnownValue("data.gse_cmdb_hosts.windows", tfjsonpath.New("bk_host_ids"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.Int64Exact(7), knownvalue.Int64Exact(14), knownvalue.Int64Exact(21), knownvalue.Int64Exact(28), knownvalue.Int64Exact(35),
						knownvalue.Int64Exact(42), knownvalue.Int64Exact(49), knownvalue.Int64Exact(70), knownvalue.Int64Exact(77),
					})),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(fleet, "host_count", count),
					resource.TestCheckResourceAttr(acctest.Addr, "hosts.#", count),
					resource.TestCheckResourceAttr("data.gse_cmdb_hosts.set", "ip_list.#", "198"), // hosts 1-200 but 99 and 199
					e.SimCheck(0, "10.0.0.10", acctest.HostedAndRunning), e.SimAbsent(0, "192.168.0.10"), ipv6, e.SimAbsent(0, "10.0.0.99"),
					e.SimCheck(0, "10.0.4.176", acctest.HostedAndRunning), // host 1200, on the third page
					e.SimCheck(0, "10.0.0.7", acctest.Restarts(1)), e.SimCheck(0, "10.0.0.70", acctest.Restarts(1)), e.SimCheck(0, "10.0.0.63", acctest.Restarts(0)),
					e.JobCheck(0, "10.0.0.200", jobHosted), e.JobCheck(0, "fd00::19", jobHosted), e.JobAbsent("10.0.0.201"),
					cmdbCalledThrough(e),
				),
			}},
		})
	})
}

func jobHosted(p simulator.Process) error {
	if !p.Hosted {
		return fmt.Errorf("want hosted, got %+v", p)
	}
	return nil
}

// cmdbCalledThrough checks that every CMDB request took this mode's form.
func cmdbCalledThrough(e *acctest.Env) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var esb, gw int
		for _, r := range e.Sim.Requests() {
			switch {
			case strings.HasPrefix(r.Path, "/api/c/compapi/v2/cc/list_biz_hosts"):
				esb++
			case r.Path == "/api/v3/hosts/app/2/list_hosts":
				gw++
			}
		}
		if want := map[bool]int{false: esb, true: gw}[e.Gateway]; want == 0 || esb+gw != want {
			return fmt.Errorf("CMDB requests: %d through ESB, %d through the gateway; want them all through the gateway: %v", esb, gw, e.Gateway)
		}
		return nil
	}
}

// TestAccCMDBHosts_membershipDrift moves hosts in and out of the selected
// module behind Terraform's back: the next plan adds and removes exactly
// them, and rollout hosts the additions one batch at a time.
func TestAccCMDBHosts_membershipDrift(t *testing.T) {
	inCMDBModes(t, 300, func(t *testing.T, e *acctest.Env) {
		// Module 1001 holds hosts 1-100; the filter keeps 7, 14, ..., 98.
		cfg := e.CMDBConfig(`
data "gse_cmdb_hosts" "mod" {
  bk_biz_id     = 2
  bk_module_ids = [1001]
  filter        = { condition = "AND", rules = [{ field = "bk_os_type", operator = "equal", value = "2" }] }
}
`) + managedOn(e, t, "data.gse_cmdb_hosts.mod.hosts", "running = true\n  rollout = { batch_size = 1 }")
		cfg = strings.Replace(cfg, e.ProviderBlock(), "", 1)
		key := func(id int) string {
			if e.Gateway && id%2 == 0 {
				return cmdb.CMDBAgent(id)
			}
			return fmt.Sprintf("0:10.0.%d.%d", id>>8, id&255)
		}
		var mark int
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{{
				Config: cfg,
				Check:  resource.ComposeAggregateTestCheckFunc(resource.TestCheckResourceAttr(acctest.Addr, "hosts.#", "14"), e.SimCheck(0, "10.0.0.14", acctest.HostedAndRunning)),
			}, {
				PreConfig: func() {
					for host, module := range map[int64]int64{14: 1003, 203: 1001, 210: 1001} {
						if err := e.Sim.CMDB().MoveHost(host, module); err != nil {
							t.Fatal(err)
						}
					}
					mark = len(e.Sim.Tasks())
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectHostsChange{addr: acctest.Addr, removed: []string{key(14)}, added: []string{key(203), key(210)}},
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(acctest.Addr, "hosts.#", "15"),
					e.SimAbsent(0, "10.0.0.14"), e.SimCheck(0, "10.0.0.203", acctest.HostedAndRunning), e.SimCheck(0, "10.0.0.210", acctest.HostedAndRunning),
					func(*terraform.State) error { return oneHostPerTask(e.Sim.Tasks()[mark:], "10.0.0.203", "10.0.0.210") },
				),
			}},
		})
	})
}

// oneHostPerTask checks that every task touching the ips (rollout's batches
// of one) targets one host, and that they were touched by separate tasks.
func oneHostPerTask(tasks []simulator.TaskRecord, ips ...string) error {
	seen := map[string]bool{}
	for _, tk := range tasks {
		for _, tg := range tk.Targets {
			if !slices.Contains(ips, tg.IP) {
				continue
			}
			if tk.Hosts != 1 {
				return fmt.Errorf("task %s (%s) targets %d hosts with %s; rollout batch_size = 1 wants one", tk.TaskID, tk.API, tk.Hosts, tg.IP)
			}
			seen[tg.IP] = true
		}
	}
	if len(seen) != len(ips) {
		return fmt.Errorf("tasks reached %v, want %v", seen, ips)
	}
	return nil
}

// expectHostsChange is a plan check: the resource's hosts lose exactly
// removed and gain exactly added (each "cloud:ip" or an agent id).
type expectHostsChange struct {
	addr           string
	removed, added []string
}

func (c expectHostsChange) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr {
			continue
		}
		before, after := plannedHostKeys(rc.Change.Before), plannedHostKeys(rc.Change.After)
		removed, added, _ := plumbing.DiffBy(before, after, func(s string) string { return s })
		sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
		if !slices.Equal(sorted(removed), sorted(c.removed)) || !slices.Equal(sorted(added), sorted(c.added)) {
			resp.Error = fmt.Errorf("%s: the plan removes hosts %v and adds %v; want removed %v, added %v", c.addr, removed, added, c.removed, c.added)
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", c.addr)
}

// plannedHostKeys are the hosts of a planned object, each as "cloud:ip" or its agent id.
func plannedHostKeys(v any) []string {
	raw, _ := json.Marshal(v)
	var obj struct {
		Hosts []struct {
			IP      *string `json:"ip"`
			Cloud   *int64  `json:"bk_cloud_id"`
			AgentID *string `json:"agent_id"`
		} `json:"hosts"`
	}
	_ = json.Unmarshal(raw, &obj)
	var out []string
	for _, h := range obj.Hosts {
		if h.AgentID != nil {
			out = append(out, *h.AgentID)
		} else if h.IP != nil && h.Cloud != nil {
			out = append(out, fmt.Sprintf("%d:%s", *h.Cloud, *h.IP))
		}
	}
	return out
}

// TestAccCMDBHosts_planErrors: every filter bk-cmdb would refuse fails at
// plan, naming the attribute and what it takes.
func TestAccCMDBHosts_planErrors(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	ds := func(args string) string {
		return e.ProviderBlock() + "data \"gse_cmdb_hosts\" \"x\" {\n" + args + "\n}\n"
	}
	rule := func(r string) string {
		return ds(`bk_biz_id = 2
filter = { condition = "AND", rules = [` + r + `] }`)
	}
	cases := []acctest.PlanError{
		{Config: ds("bk_biz_id = 0"), Want: `bk_biz_id value must be at least 1, got: 0`},
		{Config: ds("bk_biz_id = 2\nbk_set_ids = range(1, 202)"), Want: `bk_set_ids list must contain at least 1 elements and at most 200 elements, got: 201`},
		{Config: ds("bk_biz_id = 2\nbk_module_ids = [0]"), Want: `bk_module_ids\[0\] value must be at least 1, got: 0`},
		{Config: ds(`bk_biz_id = 2
filter = { condition = "XOR", rules = [{ field = "bk_os_type", operator = "equal", value = "1" }] }`), Want: `filter.condition value must be one of: \["AND" "OR"\], got: "XOR"`},
		{Config: rule(`{ field = "bk_host_name", operator = "like", value = "web" }`), Want: `operator value must be one of: \["equal" "not_equal" "in"`},
		{Config: rule(`{ field = "bk_host_name", operator = "in", value = "web" }`), Want: `filter.rules\[0\].value: operator in takes values \(strings\) or numbers, a list, not value\.`},
		{Config: rule(`{ field = "bk_host_name", operator = "equal", values = ["web"] }`), Want: `filter.rules\[0\].values: operator equal takes value \(a string\) or number, not values\.`},
		{Config: rule(`{ condition = "OR", field = "bk_host_name" }`), Want: `filter.rules\[0\] sets condition and a field test`},
		{Config: rule(`{ condition = "OR" }`), Want: `filter.rules\[0\] is a group \(condition is set\) without rules`},
		{Config: rule(`{ operator = "equal", value = "x" }`), Want: `a field test needs field and operator`},
		{Config: rule(`{ field = "bk_cloud_id", operator = "in", values = ["0", "one"] }`), Want: `bk_cloud_id is a numeric field, and "one" is not an integer`},
		// Where bk-cmdb's query builder answers 1199006:
		{Config: rule(`{ field = "bk_service_term", operator = "less", value = "3" }`), Want: `filter.rules\[0\].value: operator less compares numbers, and value is sent as a string, which CMDB refuses \(1199006\): set number instead \(for example number = 3\)`},
		{Config: rule(`{ field = "rack_unit", operator = "greater" }`), Want: `filter.rules\[0\]: operator greater takes number`},
		{Config: rule(`{ field = "bk_cloud_id", operator = "contains", number = 1 }`), Want: `filter.rules\[0\].number: operator contains takes value, a non-empty string \(a regular expression\), not number`},
		{Config: rule(`{ field = "bk_host_name", operator = "not_ends_with", values = ["a"] }`), Want: `filter.rules\[0\].values: operator not_ends_with takes value, a non-empty string \(a regular expression\), not values`},
		{Config: rule(`{ field = "bk_host_name", operator = "begins_with", value = "" }`), Want: `filter.rules\[0\].value: operator begins_with takes a non-empty string, and CMDB refuses an empty one`},
		{Config: rule(`{ field = "bk_cloud_id", operator = "in", values = ["0"], numbers = [1] }`), Want: `filter.rules\[0\].numbers: values and numbers together make a list mixing strings and numbers, which CMDB refuses`},
		{Config: rule(`{ field = "bk_cloud_id", operator = "equal", value = "0", number = 0 }`), Want: `filter.rules\[0\].number: set value or number, not both`},
		{Config: rule(`{ field = "bk_cloud_id", operator = "equal", number = 0, literal = true }`), Want: `filter.rules\[0\].literal: literal applies to the string operators`},
		{Config: rule(`{ field = "bk_host_id", operator = "between", numbers = [1, 5] }`), Want: `filter.rules\[0\].operator: CMDB's query builder does not support between`},
		{Config: rule(`{ field = "$where", operator = "equal", value = "x" }`), Want: `filter.rules\[0\].field must be a CMDB field id \(a letter or digit, then letters, digits, _, - or .\), got: \$where`},
		{Config: rule(`{ condition = "OR", rules = [] }`), Want: `filter.rules\[0\].rules list must contain at least 1 elements, got: 0`},
		{Config: ds("bk_biz_id = 2\nfilter = { condition = \"AND\", rules = [] }"), Want: `filter.rules list must contain at least 1 elements, got: 0`},
		{Config: rule(`{ condition = "OR", rules = [{ field = "bk_service_term", operator = "greater", value = "1" }] }`), Want: `filter.rules\[0\].rules\[0\].value: operator greater compares numbers`},
		// Where bk-cmdb answers 1110001 "Query Host Failed" for the whole listing, or never matches:
		{Config: rule(`{ field = "bk_host_innerip_v6", operator = "in", values = ["fd00::19", "fd00::1g"] }`), Want: `filter.rules\[0\]: "fd00::1g" is not an IPv6 address, which bk_host_innerip_v6 in takes: CMDB would fail the whole listing with 1110001`},
		{Config: rule(`{ field = "bk_host_outerip_v6", operator = "equal", value = "10.0.0.1" }`), Want: `"10.0.0.1" is not an IPv6 address`},
		{Config: rule(`{ field = "bk_host_innerip_v6", operator = "begins_with", value = "fd00::" }`), Want: `filter.rules\[0\]: CMDB stores bk_host_innerip_v6 in full form \(2001:0db8:0000:0000:0000:0000:0000:0001\) and begins_with matches it as written, so "fd00::", in short form, matches no host`},
		// A third level of groups, which CMDB refuses, cannot be written.
		{Config: rule(`{ condition = "OR", rules = [{ condition = "AND", rules = [] }] }`), Want: `filter.rules\[0\].rules\[0\]: a field test needs field and operator [^;]*; a group cannot hold groups \(CMDB refuses a tree deeper than 3\)`},
	}
	for i := range cases {
		cases[i].Want = acctest.WrappedPattern(cases[i].Want)
	}
	e.ExpectPlanErrors(t, cases)
}

// TestAccCMDBHosts_numbersAndRegexes compares CMDB's own int field and a
// custom one with numbers, and shows the string operators as CMDB runs
// them: unescaped regexes (a dot matches any character unless literal),
// case-insensitive for contains alone, on IPv6 as stored (full form).
func TestAccCMDBHosts_numbersAndRegexes(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnvWith(t, acctest.Modes[0], func(o *simulator.Options) { o.CMDBHosts = 100 })
	// Some select no host on purpose: allow_empty takes their empty hosts.
	hosts := func(name, rules string) string {
		return fmt.Sprintf("data \"gse_cmdb_hosts\" %q {\n  bk_biz_id = 2\n  allow_empty = true\n  filter = { condition = \"AND\", rules = [%s] }\n}\n", name, rules)
	}
	ids := func(name string, want ...int64) statecheck.StateCheck {
		checks := make([]knownvalue.Check, len(want))
		for i, id := range want {
			checks[i] = knownvalue.Int64Exact(id)
		}
		return statecheck.ExpectKnownValue("data.gse_cmdb_hosts."+name, tfjsonpath.New("bk_host_ids"), knownvalue.ListExact(checks))
	}
	span := func(from, to int64) []int64 {
		var out []int64
		for id := from; id <= to; id++ {
			out = append(out, id)
		}
		return out
	}
	cfg := e.ProviderBlock() +
		// rack_unit (custom) is id%42+1, bk_service_term id%5+1.
		hosts("numbers", `{ field = "rack_unit", operator = "greater_or_equal", number = 40 }, { field = "bk_service_term", operator = "less_or_equal", number = 2.5 }`) +
		hosts("in_numbers", `{ field = "bk_service_term", operator = "in", numbers = [5] }, { field = "bk_host_name", operator = "begins_with", value = "host-0000" }`) +
		hosts("dot", `{ field = "bk_host_name", operator = "begins_with", value = "host.0001" }`) +
		hosts("literal", `{ field = "bk_host_name", operator = "begins_with", value = "host.0001", literal = true }`) +
		hosts("literal_dash", `{ field = "bk_host_name", operator = "begins_with", value = "host-0001", literal = true }`) +
		hosts("contains", `{ field = "bk_host_name", operator = "contains", value = "HOST-0003" }`) +
		hosts("begins_case", `{ field = "bk_host_name", operator = "begins_with", value = "HOST-0003" }`) +
		// Sent as a string (CMDB refused the number sent before): a regex matches no number.
		hosts("regex_on_number", `{ field = "bk_cloud_id", operator = "begins_with", value = "0" }`) +
		// CMDB stores IPv6 in full form: in expands its short value, ends_with matches the full form
		// (host 25 has only fd00::19, so through ESB it is skipped, listed in skipped_host_ids).
		hosts("v6_in", `{ field = "bk_host_innerip_v6", operator = "in", values = ["fd00::19"] }`) +
		hosts("v6_ends", `{ field = "bk_host_innerip_v6", operator = "ends_with", value = "0000:0019" }`)
	skippedIDs := func(name string, id int64) statecheck.StateCheck {
		return statecheck.ExpectKnownValue("data.gse_cmdb_hosts."+name, tfjsonpath.New("skipped_host_ids"), knownvalue.ListExact([]knownvalue.Check{knownvalue.Int64Exact(id)}))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				ids("numbers", 40, 41, 81),
				ids("in_numbers", 4, 9),
				ids("dot", span(10, 19)...),
				ids("literal"),
				ids("literal_dash", span(10, 19)...),
				ids("contains", span(30, 39)...),
				ids("begins_case"),
				ids("regex_on_number"),
				skippedIDs("v6_in", 25), skippedIDs("v6_ends", 25),
			},
		}},
	})
}

// bk-cmdb's apiserver refuses for its rate limit with its own keys
// (bk_error_code 1199997, HTTP 200), through ESB and its gateway alike: the
// pages are paced and read again, and the listing is whole.
func TestAccCMDBHosts_limiterRetried(t *testing.T) {
	inCMDBModes(t, 1200, func(t *testing.T, e *acctest.Env) {
		e.Sim.AddFault(simulator.Fault{API: "cc/list_biz_hosts", Code: 1199997, Times: 3})
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{{
				Config: e.CMDBConfig("data \"gse_cmdb_hosts\" \"all\" { bk_biz_id = 2 }\n"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gse_cmdb_hosts.all", tfjsonpath.New("bk_host_ids"), knownvalue.ListSizeExact(map[bool]int{false: 1164, true: 1188}[e.Gateway])),
				},
				Check: func(*terraform.State) error {
					if n := e.Sim.FaultsLeft(); n != 0 {
						return fmt.Errorf("%d of the refusals never came: the listing did not go through them", n)
					}
					return nil
				},
			}},
		})
	})
}
