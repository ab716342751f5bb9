package managedprocess_test

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// What only the gateway mode has: hosts by agent id and IPv6, agents that go
// down, the gateway's error classes, and credentials only in headers.

// statusOf is a gse_process_status data source reading proc-test on hosts (HCL objects).
func statusOf(hosts ...string) string {
	return fmt.Sprintf(`
data "gse_process_status" "x" {
  meta       = { namespace = "gse", name = "proc-test" }
  hosts      = [%s]
  depends_on = [gse_managed_process.test]
}
`, strings.Join(hosts, ", "))
}

// Hosts by a hex agent id, by an IPv6 {bk_cloud_id}:{ip} agent id and by ip
// live side by side; host_status is keyed by the agent id as written,
// gse_process_status reads them back by agent id, and import takes them.
func TestAccManagedProcessGateway_agentIDHosts(t *testing.T) {
	t.Parallel()
	e := acctest.NewGatewayEnv(t, nil)
	e.Sim.Gateway().AddAgent(acctest.AgentA, 0, "10.0.0.5")
	cfg := e.Config(acctest.Proc{Hosts: []string{"agent:" + acctest.AgentA, "agent:1:2001:db8::7", "0:10.0.0.1"}, Extra: "running = true"}) +
		statusOf(fmt.Sprintf(`{ agent_id = %q }`, acctest.AgentA), `{ agent_id = "1:2001:db8::7" }`, `{ ip = "10.0.0.1", bk_cloud_id = 0 }`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("hosts").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"agent_id": knownvalue.StringExact(acctest.AgentA), "ip": knownvalue.Null(), "bk_cloud_id": knownvalue.Null(), "bk_supplier_id": knownvalue.Int64Exact(0),
				})),
				statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("host_status").AtMapKey(acctest.AgentA).AtMapKey("status"), knownvalue.StringExact("running")),
				statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("host_status").AtMapKey("1:2001:db8::7").AtMapKey("managed"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.gse_process_status.x", tfjsonpath.New("all_running"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.gse_process_status.x", tfjsonpath.New("proc_infos").AtSliceIndex(0).AtMapKey("agent_id"), knownvalue.StringExact(acctest.AgentA)),
				statecheck.ExpectKnownValue("data.gse_process_status.x", tfjsonpath.New("proc_infos").AtSliceIndex(0).AtMapKey("key"), knownvalue.StringExact(acctest.AgentA)),
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check: resource.ComposeAggregateTestCheckFunc(
				e.SimCheck(0, "10.0.0.5", acctest.HostedAndRunning), e.SimCheck(1, "2001:db8::7", acctest.HostedAndRunning), e.SimCheck(0, "10.0.0.1", acctest.HostedAndRunning),
				func(*terraform.State) error {
					if n := e.Sim.Calls("register_proc_info"); n != 0 {
						return fmt.Errorf("register_proc_info called %d times through the gateway, want 0", n)
					}
					if p, _ := e.Sim.GSE().Process("gse", "proc-test", 0, "10.0.0.5"); p.AgentID != acctest.AgentA {
						return fmt.Errorf("the process on 10.0.0.5 was created through agent %q, want %s", p.AgentID, acctest.AgentA)
					}
					return nil
				},
			),
		}, {
			RefreshState: true, // host_status then holds what import reads
		}, {
			ResourceName:            acctest.Addr,
			ImportState:             true,
			ImportStateId:           "gse/proc-test@agent_id=" + acctest.AgentA + ",agent_id=1:2001:db8::7,0:0:10.0.0.1",
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"spec", "running", "timeouts"}, // as in TestAccManagedProcess_lifecycle
		}},
	})
}

// A host whose agent goes down is kept through refresh with its last status
// (unknown is not drift), gse_process_status says unknown, and an apply that
// would operate there fails at once naming it, without sending an operation.
func TestAccManagedProcessGateway_downAgent(t *testing.T) {
	t.Parallel()
	e := acctest.NewGatewayEnv(t, nil)
	e.Sim.Gateway().AddAgent(acctest.AgentA, 0, "10.0.0.5")
	hosts := []string{"agent:" + acctest.AgentA, "0:10.0.0.1"}
	cfg := func(trigger string) string {
		return e.Config(acctest.Proc{Hosts: hosts, Extra: "running = true\n restart_triggers = { conf = \"" + trigger + "\" }"})
	}
	read := statusOf(fmt.Sprintf(`{ agent_id = %q }`, acctest.AgentA), `{ ip = "10.0.0.1", bk_cloud_id = 0 }`)
	var operations int
	operateCalls := func() int { return e.Sim.Calls("operate_proc_v2") + e.Sim.Calls("operate_proc_multi") }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{Config: cfg("v1")},
			{
				PreConfig: func() { e.Sim.Gateway().SetAgentState(acctest.AgentA, 3) }, // damaged
				Config:    cfg("v1") + read,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.Addr, plancheck.ResourceActionNoop)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("hosts"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("running"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("host_status").AtMapKey(acctest.AgentA).AtMapKey("status"), knownvalue.StringExact("running")),
					statecheck.ExpectKnownValue("data.gse_process_status.x", tfjsonpath.New("proc_infos").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("unknown")),
					statecheck.ExpectKnownValue("data.gse_process_status.x", tfjsonpath.New("proc_infos").AtSliceIndex(1).AtMapKey("status"), knownvalue.StringExact("running")),
					statecheck.ExpectKnownValue("data.gse_process_status.x", tfjsonpath.New("all_running"), knownvalue.Bool(false)),
				},
			},
			{
				PreConfig:   func() { operations = operateCalls() },
				Config:      cfg("v2"),
				ExpectError: regexp.MustCompile(`(?s)Could not update process gse/proc-test.*the GSE agent is not running on agent_id\s+` + acctest.AgentA + `\s+\(status_code 3,\s+damaged\)`),
			},
			{
				PreConfig: func() {
					if n := operateCalls() - operations; n != 0 {
						t.Errorf("%d operations sent while the agent was down, want 0", n)
					}
					e.Sim.Gateway().SetAgentState(acctest.AgentA, 2)
				},
				Config: cfg("v2"),
				Check:  resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.5", acctest.HostedAndRunning), e.SimCheck(0, "10.0.0.5", restartsAndNoReload(1))),
			},
		},
	})
}

func restartsAndNoReload(restarts int) func(simulator.Process) error {
	return func(p simulator.Process) error {
		if p.Restarts != restarts || p.Reloads != 0 {
			return fmt.Errorf("restarts/reloads = %d/%d, want %d/0", p.Restarts, p.Reloads, restarts)
		}
		return nil
	}
}

// Each class of gateway error reaches the user as a diagnostic that names the
// API, the credential or grant to fix, and what to do; with the gateway's real
// HTTP status and when it rewrites statuses to 200. Nothing is left behind.
func TestAccManagedProcessGateway_errorClasses(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		fault simulator.Fault
		token string // access_token in the provider block instead of the app
		want  string
	}{
		"auth: app": {fault: simulator.Fault{API: "list_agent_state", Code: 1640001, Message: `Parameters error [reason="bk_app_code or bk_app_secret is incorrect"]`},
			want: `list_agent_state: (HTTP 400, )?code 1640001 INVALID_ARGS: Parameters error \[reason="bk_app_code or bk_app_secret is incorrect"\] \(the bk_app_code/bk_app_secret with bk_username credentials sent were refused\).*check app_code and app_secret \(BK_APP_CODE, BK_APP_SECRET\)`},
		"auth: token": {token: "expired-token",
			want: `list_agent_state: (HTTP 400, )?code 1640001 INVALID_ARGS: Parameters error \[reason="access_token has expired"\] \(the access_token credentials sent were refused\).*access_token \(BK_ACCESS_TOKEN\) was refused`},
		"permission": {fault: simulator.Fault{API: "operate_proc_v2", Code: 1640301},
			want: `operate_proc_v2: (HTTP 403, )?code 1640301 APP_NO_PERMISSION.*apply for the bk-gse gateway permission of operate_proc_v2`},
		"tenant": {fault: simulator.Fault{API: "list_agent_state", Code: 1640302, Message: `Cross tenant forbidden [reason="Cross-tenant calls are not allowed: header X-Bk-Tenant-Id is required and should not be empty. the app tf-acc tenant_mode=global. [AH1]"]`},
			want: `list_agent_state: (HTTP 403, )?code 1640302 CROSS_TENANT_FORBIDDEN.*\[AH1\].*set tenant_id \(BK_TENANT_ID\)`},
		"params": {fault: simulator.Fault{API: "operate_proc_v2", Code: 1640001, Message: `Parameters error [reason="agent_id_list is invalid"]`},
			want: `operate_proc_v2: (HTTP 400, )?code 1640001 INVALID_ARGS: Parameters error \[reason="agent_id_list is invalid"\].*refused the request's parameters`},
		"too large": {fault: simulator.Fault{API: "operate_proc_v2", Code: 1641301, Times: simulator.Forever},
			want: `code 1641301 BODY_SIZE_LIMIT_EXCEED.*too large for the gateway.*split the hosts over several resources`},
		"backend": {fault: simulator.Fault{API: "list_agent_state", Code: 1650401, Times: simulator.Forever},
			want: `list_agent_state: HTTP 504, code 1650401 REQUEST_BACKEND_TIMEOUT.*after 6 attempts.*kept failing`},
	} {
		for _, rewrite := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/rewritten=%v", name, rewrite), func(t *testing.T) {
				t.Parallel()
				e := acctest.NewGatewayEnv(t, func(o *simulator.Options) { o.AccessToken = acctest.Token })
				e.Sim.SetGatewayStatusRewrite(rewrite)
				if tc.fault.API != "" {
					e.Sim.AddFault(tc.fault)
				}
				good := e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1"}, Extra: "running = true"})
				bad := good
				if tc.token != "" {
					bad = acctest.WithAccessToken(t, good, tc.token)
				}
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: e.Factories(),
					CheckDestroy:             e.CheckSimEmpty,
					Steps: []resource.TestStep{
						{Config: bad, ExpectError: regexp.MustCompile(`(?s)Could not create process gse/proc-test.*` + acctest.WrappedPattern(tc.want))},
						{
							// The gateway refused before GSE acted: nothing is in the state, so this is a plain create.
							PreConfig: e.Sim.ClearFaults,
							Config:    good,
							ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
								plancheck.ExpectResourceAction(acctest.Addr, plancheck.ResourceActionCreate),
							}},
							Check: e.SimCheck(0, "10.0.0.1", acctest.HostedAndRunning),
						},
					},
				})
			})
		}
	}
}

// Through the gateway every request carries its credentials and tenant in
// headers and none in its body, whether the app and user or an access token
// authenticate, over a create, an update and a destroy.
func TestAccManagedProcessGateway_headerOnlyAuth(t *testing.T) {
	t.Parallel()
	for _, token := range []string{"", acctest.Token} {
		t.Run(fmt.Sprintf("access_token=%v", token != ""), func(t *testing.T) {
			t.Parallel()
			e := acctest.NewGatewayEnv(t, func(o *simulator.Options) { o.RecordRequests, o.AccessToken = true, acctest.Token })
			cfg := func(setup string) string {
				c := e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1", "0:2001:db8::1"}, SetupPath: setup, Extra: "running = true"})
				if token != "" {
					c = acctest.WithAccessToken(t, c, token)
				}
				return c
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: e.Factories(),
				CheckDestroy: func(s *terraform.State) error {
					if err := e.CheckSimEmpty(s); err != nil {
						return err
					}
					return headerOnly(e.Sim.Requests(), token)
				},
				Steps: []resource.TestStep{
					{Config: cfg("/data/gsetest")},
					{Config: cfg("/data/gsetest2"), Check: e.SimCheck(0, "2001:db8::1", func(p simulator.Process) error {
						if specField(p, "setup_path") != "/data/gsetest2" {
							return fmt.Errorf("spec not updated: %s", p.Spec)
						}
						return acctest.HostedAndRunning(p)
					})},
				},
			})
		})
	}
}

// headerOnly checks every recorded request: a gateway path, the tenant and
// credentials in headers, and no credential in the body.
func headerOnly(reqs []simulator.RequestRecord, token string) error {
	if len(reqs) == 0 {
		return fmt.Errorf("no request recorded")
	}
	apis := map[string]bool{}
	for _, r := range reqs {
		apis[r.Path[strings.LastIndex(r.Path, "/")+1:]] = true
		if !strings.HasPrefix(r.Path, "/api/v2/proc/") && !strings.HasPrefix(r.Path, "/api/v2/cluster/") {
			return fmt.Errorf("%s: not a gateway path", r.Path)
		}
		if got := r.Header.Get("X-Bk-Tenant-Id"); got != acctest.Tenant {
			return fmt.Errorf("%s: X-Bk-Tenant-Id = %q, want %q", r.Path, got, acctest.Tenant)
		}
		auth := r.Header.Get("X-Bkapi-Authorization")
		if want := cmp.Or(token, acctest.AppSecret); !strings.Contains(auth, want) {
			return fmt.Errorf("%s: X-Bkapi-Authorization lacks the credential: %q", r.Path, auth)
		}
		for _, secret := range []string{acctest.AppSecret, acctest.Token, "bk_app_code", "bk_app_secret", "bk_username", "access_token", "bk_token"} {
			if strings.Contains(string(r.Body), secret) {
				return fmt.Errorf("%s: the body holds %q: %s", r.Path, secret, r.Body)
			}
		}
	}
	for _, api := range []string{"list_agent_state", "operate_proc_v2", "get_proc_operate_result_v2", "get_proc_status_v2", "update_proc_info"} {
		if !apis[api] {
			return fmt.Errorf("no %s request recorded (got %v)", api, apis)
		}
	}
	return nil
}

// Hosts given only by a 36-hex agent id (no ip anywhere in the configuration)
// through the gateway, whose status entries name them by the top-level
// bk_agent_id only: create, an empty plan after refresh, host_status and
// gse_process_status filled for each, then destroy. GSE 2.0 has nothing that
// unregisters: what destroy leaves is the process record, stopped and unhosted.
func TestAccManagedProcessGateway_agentIDOnlyHosts(t *testing.T) {
	t.Parallel()
	e := acctest.NewGatewayEnv(t, nil)
	e.Sim.Gateway().AddAgent(acctest.AgentA, 0, "10.0.0.5")
	e.Sim.Gateway().AddAgent(acctest.AgentB, 2, "10.0.0.6")
	cfg := e.Config(acctest.Proc{Hosts: []string{"agent:" + acctest.AgentA, "agent:" + acctest.AgentB}, Extra: "running = true"}) +
		statusOf(fmt.Sprintf(`{ agent_id = %q }`, acctest.AgentA), fmt.Sprintf(`{ agent_id = %q }`, acctest.AgentB))
	ds := "data.gse_process_status.x"
	var checks, refreshed []statecheck.StateCheck
	for i, id := range []string{acctest.AgentA, acctest.AgentB} {
		checks = append(checks,
			statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("host_status").AtMapKey(id), knownvalue.ObjectExact(map[string]knownvalue.Check{
				"status": knownvalue.StringExact("running"), "managed": knownvalue.Bool(true),
			})),
			statecheck.ExpectKnownValue(ds, tfjsonpath.New("proc_infos").AtSliceIndex(i), knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"agent_id": knownvalue.StringExact(id), "ip": knownvalue.Null(), "status": knownvalue.StringExact("running"), "managed": knownvalue.Bool(true),
			})),
		)
		// The runtime facts are the data source's.
		refreshed = append(refreshed, statecheck.ExpectKnownValue(ds, tfjsonpath.New("proc_infos").AtSliceIndex(i).AtMapKey("pid"), knownvalue.Int64Func(positive)))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy: func(*terraform.State) error {
			for _, h := range []struct {
				cloud int64
				ip    string
			}{{0, "10.0.0.5"}, {2, "10.0.0.6"}} {
				p, ok := e.Sim.GSE().Process("gse", "proc-test", h.cloud, h.ip)
				if ok && (p.Hosted || p.Running) {
					return fmt.Errorf("destroy left the process on %s hosted or running: %+v", h.ip, p)
				}
			}
			return e.CheckSimEmpty(nil)
		},
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: append(checks,
					statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("hosts"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("running"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("managed"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("all_running"), knownvalue.Bool(true)),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.5", acctest.HostedAndRunning), e.SimCheck(2, "10.0.0.6", acctest.HostedAndRunning)),
			},
			{
				// Refreshed again: the hosts are found by their agent id, nothing to do.
				Config:            cfg,
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: append(checks, refreshed...),
			},
		},
	})
}

func positive(v int64) error {
	if v <= 0 {
		return fmt.Errorf("%d is not positive", v)
	}
	return nil
}

// Discovery through the gateway yields agent ids: terraform query lists the
// hosts of a process created on agent-id hosts by their agent id, and an
// import block with its identity imports them so, then the plan is empty.
func TestAccManagedProcessGateway_discoverAgentIDs(t *testing.T) {
	t.Parallel()
	e := acctest.NewGatewayEnv(t, nil)
	e.Sim.Gateway().AddAgent(acctest.AgentA, 0, "10.0.0.5")
	e.Sim.Gateway().AddAgent(acctest.AgentB, 2, "10.0.0.6")
	agentHost := func(id string) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"agent_id": knownvalue.StringExact(id), "ip": knownvalue.Null(), "bk_cloud_id": knownvalue.Null(), "bk_supplier_id": knownvalue.Int64Exact(0),
		})
	}
	cfg := e.Config(acctest.Proc{Hosts: []string{"agent:" + acctest.AgentA, "agent:" + acctest.AgentB}, Extra: "running = true"})
	importBlock := `
import {
  to       = gse_managed_process.test
  identity = { namespace = "gse", name = "proc-test" }
}
`
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   acctest.TF114Versions,
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					e.Register(t, gse.Meta{Namespace: "gse", Name: "proc-test"}, []string{"agent:" + acctest.AgentB, "agent:" + acctest.AgentA}, acctest.OpPtr(gse.OpStart))
				},
				Config: e.ProviderBlock(),
			},
			{
				Query: true,
				Config: `
list "gse_managed_process" "all" {
  provider         = gse
  include_resource = true
  config {
    namespace = "gse"
  }
}
`,
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("gse_managed_process.all", 1),
					querycheck.ExpectResourceKnownValues("gse_managed_process.all", named("proc-test"), []querycheck.KnownValueCheck{
						{Path: tfjsonpath.New("hosts"), KnownValue: knownvalue.ListExact([]knownvalue.Check{agentHost(acctest.AgentA), agentHost(acctest.AgentB)})},
						{Path: tfjsonpath.New("running"), KnownValue: knownvalue.Bool(true)},
						{Path: tfjsonpath.New("host_status").AtMapKey(acctest.AgentB).AtMapKey("status"), KnownValue: knownvalue.StringExact("running")},
					}),
				},
			},
			{
				Config: cfg + importBlock,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.Addr, plancheck.ResourceActionUpdate), // the spec, which GSE cannot return
					expectImported{addr: acctest.Addr, identity: map[string]any{"namespace": "gse", "name": "proc-test"},
						hosts: []string{"agent:" + acctest.AgentA, "agent:" + acctest.AgentB}, labels: nil},
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("hosts"), knownvalue.ListExact([]knownvalue.Check{agentHost(acctest.AgentA), agentHost(acctest.AgentB)})),
				},
			},
			{Config: cfg + importBlock, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}
