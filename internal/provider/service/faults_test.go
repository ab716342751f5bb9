package service_test

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// stateKnowsSim checks that the simulator holds nothing the state does not
// know: every process GSE has (through the gateway: still hosted) is an
// instance of the state not recorded absent, and one the state records
// running runs there with the pid the state holds.
func stateKnowsSim(e *acctest.Env) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s is not in the state", addr)
		}
		attrs := rs.Primary.Attributes
		for _, p := range e.Sim.GSE().Processes() {
			if e.Gateway && !p.Hosted {
				continue
			}
			k := fmt.Sprintf("instances.%s/%s@%d:%s.", p.Namespace, p.Name, p.BkCloudID, p.IP)
			st, ok := attrs[k+"status"]
			switch {
			case !ok:
				return fmt.Errorf("GSE holds %s/%s on %s, which the state does not list", p.Namespace, p.Name, p.IP)
			case st == "absent":
				return fmt.Errorf("GSE holds %s/%s on %s, which the state records absent", p.Namespace, p.Name, p.IP)
			case st == "running" && (!p.Running || attrs[k+"pid"] != strconv.FormatInt(p.PID, 10)):
				return fmt.Errorf("%s/%s on %s: the state says running with pid %s, GSE has running %t, pid %d", p.Namespace, p.Name, p.IP, attrs[k+"pid"], p.Running, p.PID)
			}
		}
		return nil
	}
}

// clearFaults is a check that disarms the simulator's faults once the
// step's apply is done, before the refresh and plan that follow it.
func clearFaults(e *acctest.Env) resource.TestCheckFunc {
	return func(*terraform.State) error {
		e.Sim.ClearFaults()
		return nil
	}
}

// faultsFired checks that every fault a step armed for a number of times fired.
func faultsFired(e *acctest.Env) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if n := e.Sim.FaultsLeft(); n != 0 {
			return fmt.Errorf("%d faults did not fire", n)
		}
		return nil
	}
}

// midBatch is a service whose single tier runs one host a batch: web alone
// on 10.0.0.1 (one operate_proc_v2 task), web and app on 10.0.0.2 (one
// operate_proc_multi task of both), web on 10.0.0.3.
func midBatch(e *acctest.Env, extra string) string {
	return serviceConfig(e, []svcGroup{{"web", 10, []int{1, 2, 3}}, {"app", 10, []int{2}}}, "rollout = { batch_size = 1 }\n"+extra)
}

// The reply to the second batch's operate_proc_multi is cut after GSE
// started both processes: the state records them failed with the API and
// why, the third batch pending, and nothing runs that the state does not
// list. The next apply acts on 10.0.0.2 and 10.0.0.3 alone, leaving the
// first batch's pid, and the plan after it is empty.
func TestAccServiceFaults_replyLostMidBatch(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		cfg := midBatch(e, "")
		key := func(k string) tfjsonpath.Path { return tfjsonpath.New("instances").AtMapKey(k) }
		pids := map[string]int64{}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{
					PreConfig:          func() { e.Sim.AddFault(simulator.Fault{API: "operate_proc_multi", Acted: true, Cut: true}) },
					Config:             cfg,
					ExpectNonEmptyPlan: true,
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("failed_count"), knownvalue.Int64Exact(2)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_count"), knownvalue.Int64Exact(1)),
						statecheck.ExpectKnownValue(addr, key("svc/web@0:10.0.0.1").AtMapKey("status"), knownvalue.StringExact("running")),
						statecheck.ExpectKnownValue(addr, key("svc/app@0:10.0.0.2").AtMapKey("status"), knownvalue.StringExact("failed")),
						statecheck.ExpectKnownValue(addr, key("svc/app@0:10.0.0.2").AtMapKey("message"), knownvalue.StringRegexp(regexp.MustCompile(`operate_proc_multi`))),
						statecheck.ExpectKnownValue(addr, key("svc/web@0:10.0.0.3").AtMapKey("message"), knownvalue.StringRegexp(regexp.MustCompile(`^not run: 2 of the release's 4 instances failed`))),
					},
					Check: resource.ComposeAggregateTestCheckFunc(faultsFired(e), stateKnowsSim(e), recordPIDs(e.Sim, pids)),
				},
				{
					Config: cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListExact([]knownvalue.Check{
							tierCheck(1, "ascending", 10, [][]string{{"svc/app@0:10.0.0.2", "svc/web@0:10.0.0.2"}, {"svc/web@0:10.0.0.3"}}),
						})),
					}},
					ConfigStateChecks: countsAre(0, 0),
					Check: resource.ComposeAggregateTestCheckFunc(stateKnowsSim(e),
						func(*terraform.State) error { return samePIDs(e.Sim, pids, []string{"10.0.0.1", "10.0.0.2"}) }),
				},
				{Config: cfg, PlanOnly: true},
			},
		})
	})
}

// countsAre checks failed_count and pending_count.
func countsAre(failed, pending int64) []statecheck.StateCheck {
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("failed_count"), knownvalue.Int64Exact(failed)),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_count"), knownvalue.Int64Exact(pending)),
	}
}

// A 5xx on every poll of the first batch's task (until the apply is done)
// fails that batch's instance with the API, the status and the request id,
// though GSE started it, and leaves the later batches pending. A 5xx on
// every status read does the same: through ESB the health gate's reads fail
// after the start, and the message keeps the 503 whenever the deadline cuts
// the last read; through the gateway the read before the start (no other
// owner may host the process) fails, and nothing is sent. Nothing runs that
// the state does not list; the next apply runs the failed and pending
// instances, leaving the pid GSE gave the first, and the plan is then empty.
func TestAccServiceFaults_5xxOnPoll(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		api, why string
	}{
		"operate result": {"get_proc_operate_result_v2", `get_proc_operate_result_v2: HTTP 503`},
		"status read":    {"get_proc_status_v2", `get_proc_status_v2: HTTP 503`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
				// Labels set: a send with labels unset reads them first
				// (get_proc_status_v2), which would meet the 503 before the gate.
				cfg := strings.ReplaceAll(midBatch(e, `health = { healthy_deadline = "1s" }`), `" }`+"\n      priority", `", labels = {} }`+"\n      priority")
				key := func(k string) tfjsonpath.Path { return tfjsonpath.New("instances").AtMapKey(k) }
				pids := map[string]int64{}
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: e.Factories(),
					CheckDestroy:             e.CheckSimEmpty,
					Steps: []resource.TestStep{
						{
							PreConfig: func() {
								e.Sim.AddFault(simulator.Fault{API: tc.api, HTTPStatus: http.StatusServiceUnavailable, Times: simulator.Forever})
							},
							Config:             cfg,
							ExpectNonEmptyPlan: true,
							ConfigStateChecks: append(countsAre(1, 3),
								statecheck.ExpectKnownValue(addr, key("svc/web@0:10.0.0.1").AtMapKey("status"), knownvalue.StringExact("failed")),
								statecheck.ExpectKnownValue(addr, key("svc/web@0:10.0.0.1").AtMapKey("message"), knownvalue.StringRegexp(regexp.MustCompile(tc.why))),
								statecheck.ExpectKnownValue(addr, key("svc/app@0:10.0.0.2").AtMapKey("status"), knownvalue.StringExact("absent")),
								statecheck.ExpectKnownValue(addr, key("svc/web@0:10.0.0.3").AtMapKey("message"), knownvalue.StringRegexp(regexp.MustCompile(`^not run: 1 of the release's 4 instances failed`))),
							),
							Check: resource.ComposeAggregateTestCheckFunc(clearFaults(e), stateKnowsSim(e), recordPIDs(e.Sim, pids), started(e, tc.api)),
						},
						{
							Config: cfg,
							ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
								plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListExact([]knownvalue.Check{
									tierCheck(1, "ascending", 10, [][]string{{"svc/web@0:10.0.0.1"}, {"svc/app@0:10.0.0.2", "svc/web@0:10.0.0.2"}, {"svc/web@0:10.0.0.3"}}),
								})),
							}},
							ConfigStateChecks: countsAre(0, 0),
							Check: resource.ComposeAggregateTestCheckFunc(stateKnowsSim(e),
								func(*terraform.State) error { return samePIDs(e.Sim, pids, []string{"10.0.0.1"}) }),
						},
						{Config: cfg, PlanOnly: true},
					},
				})
			})
		})
	}
}

// started checks web on 10.0.0.1 after a 5xx on every call of api: started,
// unless the read before a create through the gateway failed.
func started(e *acctest.Env, api string) resource.TestCheckFunc {
	if e.Gateway && api == "get_proc_status_v2" {
		return func(*terraform.State) error {
			if _, ok := e.Sim.GSE().Process("svc", "web", 0, "10.0.0.1"); ok {
				return errors.New("GSE holds svc/web on 10.0.0.1, though its create failed before any operate")
			}
			return nil
		}
	}
	return e.SimCheckOf("svc", "web", "10.0.0.1", acctest.HostedAndRunning)
}

// markTasks is acctest.MarkTasks as a check, for what runs after the step.
func markTasks(e *acctest.Env, mark *int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		acctest.MarkTasks(e.Sim, mark)()
		return nil
	}
}

// A 5xx on every status read of the health gate, on both paths: app on
// 10.0.0.2 and web on 10.0.0.3, stopped out of band, are started again,
// one host a batch; app's gate cannot read its status until the deadline,
// so it fails with the 503 named, web on 10.0.0.3 stays pending and the
// update fails. The plans do not refresh (the faults would fail the
// refresh); a refresh-only step finds the drift. The next apply runs those
// two alone: app, which GSE did start, keeps its pid, and so does every
// other instance.
func TestAccServiceFaults_5xxInHealthGate(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		// Labels set: a send with labels unset reads them first
		// (get_proc_status_v2), which would meet the 503 before the gate.
		cfg := strings.ReplaceAll(midBatch(e, `health = { healthy_deadline = "1s" }`), `" }`+"\n      priority", `", labels = {} }`+"\n      priority")
		pids := map[string]int64{}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			AdditionalCLIOptions:     &resource.AdditionalCLIOptions{Plan: resource.PlanOptions{NoRefresh: true}},
			Steps: []resource.TestStep{
				{Config: cfg},
				{
					PreConfig: func() {
						for _, d := range [][2]string{{"app", "10.0.0.2"}, {"web", "10.0.0.3"}} {
							if err := e.Sim.GSE().Drift(simulator.DriftStop, "svc", d[0], 0, d[1]); err != nil {
								t.Fatal(err)
							}
						}
					},
					RefreshState:       true,
					ExpectNonEmptyPlan: true,
				},
				{
					PreConfig: func() {
						e.Sim.AddFault(simulator.Fault{API: "get_proc_status_v2", HTTPStatus: http.StatusServiceUnavailable, Times: simulator.Forever})
					},
					Config: cfg,
					ExpectError: regexp.MustCompile(`(?s)1 instance failed and 1 did not run:.*svc/app@0:10.0.0.2: failed: not healthy within health.healthy_deadline \(1s\): its status could not be read: .*get_proc_status_v2: HTTP 503.*` +
						`svc/web@0:10.0.0.3: pending: not run: 1 of the release's 2 instances failed`),
				},
				{
					PreConfig: func() { e.Sim.ClearFaults(); _ = recordPIDs(e.Sim, pids)(nil) },
					Config:    cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("schedule"), knownvalue.ListExact([]knownvalue.Check{
							tierCheck(1, "ascending", 10, [][]string{{"svc/app@0:10.0.0.2"}, {"svc/web@0:10.0.0.3"}}),
						})),
					}},
					ConfigStateChecks: countsAre(0, 0),
					Check: resource.ComposeAggregateTestCheckFunc(stateKnowsSim(e),
						func(*terraform.State) error { return samePIDs(e.Sim, pids, []string{"10.0.0.1", "10.0.0.2"}) },
						e.SimCheckOf("svc", "web", "10.0.0.3", acctest.HostedAndRunning)),
				},
			},
		})
	})
}
