package managedprocess_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// Faults of issue 7 through a real gse_managed_process: each case injects a
// fault of the simulator, applies, and destroys to an empty simulator.

// faultEnv is a acctest.Env whose provider is tuned per test: tune runs after the
// usual millisecond polling, and extra goes into the provider block.
type faultEnv struct {
	*acctest.Env
	tune  func(*gse.Config)
	extra string
}

func newFaultEnv(t *testing.T, extra string, tune func(*gse.Config)) *faultEnv {
	return &faultEnv{Env: acctest.NewEnv(t), tune: tune, extra: extra}
}

// faultEnvOf is a faultEnv around e (of any mode).
func faultEnvOf(e *acctest.Env, extra string, tune func(*gse.Config)) *faultEnv {
	return &faultEnv{Env: e, tune: tune, extra: extra}
}

func (e *faultEnv) factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"gse": packed.NewProtocol6(provider.NewTuned("test", func(c *gse.Config) {
			c.PollInitial, c.PollMax = time.Millisecond, 10*time.Millisecond
			c.RetryWaitMin, c.RetryWaitMax = time.Millisecond, 10*time.Millisecond
			if c.RateLimit == 0 {
				c.RateLimit = acctest.Rate
			}
			if e.tune != nil {
				e.tune(c)
			}
		})()),
	}
}

// procConfig is a one-host gse_managed_process with running = true and extra
// arguments, under this env's provider block.
func (e *faultEnv) procConfig(extra string) string {
	cfg := e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1"}, Extra: "running = true\n" + extra})
	return strings.Replace(cfg, e.ProviderBlock(), strings.Replace(e.ProviderBlock(), "}", e.extra+"\n}", 1), 1)
}

func (e *faultEnv) apply(t *testing.T, steps ...resource.TestStep) {
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: e.factories(), CheckDestroy: e.CheckSimEmpty, Steps: steps})
}

func calledAtLeast(sim *simulator.Server, api string, n int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := sim.Calls(api); got < n {
			return fmt.Errorf("%s called %d times, want at least %d", api, got, n)
		}
		return nil
	}
}

// Item 2: a register that GSE carried out but whose reply was lost is re-sent
// by the HTTP retry; the 850 it then gets is its own work, so create succeeds.
func TestAccManagedProcessFaults_registerRetried(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]simulator.Fault{
		"reply after request_timeout": {Delay: 3 * time.Second},
		"reply cut":                   {Cut: true},
		"503 after acting":            {HTTPStatus: http.StatusServiceUnavailable, Acted: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newFaultEnv(t, `request_timeout = "1s"`, nil)
			f.API = "register_proc_info"
			e.apply(t, resource.TestStep{
				PreConfig: func() { e.Sim.AddFault(f) },
				Config:    e.procConfig(""),
				Check: resource.ComposeAggregateTestCheckFunc(
					e.SimCheck(0, "10.0.0.1", acctest.HostedAndRunning),
					calledAtLeast(e.Sim, "register_proc_info", 2),
				),
			})
		})
	}
}

// Item 3: a reply cut short is retried on idempotent calls (a poll here), and
// when it keeps being cut the error is the read error, not "GSE code 0".
func TestAccManagedProcessFaults_truncatedReply(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, env *acctest.Env) {
		e := faultEnvOf(env, "", nil)
		cfg := e.procConfig("")
		e.apply(t,
			resource.TestStep{
				PreConfig: func() {
					e.Sim.AddFault(simulator.Fault{API: "get_proc_operate_result_v2", Cut: true, Times: 2})
				},
				Config: cfg,
				Check:  resource.ComposeAggregateTestCheckFunc(e.SimCheck(0, "10.0.0.1", acctest.HostedAndRunning)),
			},
			resource.TestStep{
				PreConfig: func() {
					e.Sim.AddFault(simulator.Fault{API: "get_proc_status_v2", Cut: true, Times: simulator.Forever})
				},
				Config:      cfg,
				ExpectError: acctest.Wrapped("get_proc_status_v2: HTTP 200 reply unreadable: unexpected EOF", "after 6 attempts", "The endpoint kept failing"),
			},
			resource.TestStep{
				PreConfig: e.Sim.ClearFaults,
				Config:    cfg,
				PlanOnly:  true,
			},
		)
	})
}

// Item 4 and the deadline: a fault that lasts past the create timeout fails
// the apply with what really happened (the last HTTP error, or the host that
// never answered), the registered host stays in the tainted state, and once
// the fault is gone the next apply replaces it.
func TestAccManagedProcessFaults_untilDeadline(t *testing.T) {
	t.Parallel()
	slowRetries := func(c *gse.Config) { c.RetryWaitMin, c.RetryWaitMax = 50*time.Millisecond, 200*time.Millisecond }
	for name, tc := range map[string]struct {
		fault     simulator.Fault
		hostFault simulator.HostFault
		polls     *simulator.TaskPolls // the task's latency, when not the default
		want      []string
	}{
		"503 on every poll": {
			fault: simulator.Fault{API: "get_proc_operate_result_v2", HTTPStatus: http.StatusServiceUnavailable, Message: "upstream unavailable", Times: simulator.Forever},
			want: []string{"did not finish on 1 of 1 hosts in the", "it ran before the deadline (context deadline exceeded while retrying get_proc_operate_result_v2: HTTP 503: upstream unavailable",
				"10.0.0.1 (bk_cloud_id 0): still pending", "The endpoint kept failing"},
		},
		"host missing from the result map": {
			hostFault: simulator.HostFault{API: "operate_proc_v2", IP: "10.0.0.1", Missing: true, Times: simulator.Forever},
			want: []string{"did not finish on 1 of 1 hosts in the", "it ran before the deadline (context deadline exceeded):", "10.0.0.1 (bk_cloud_id 0): still pending",
				"GSE had not finished task", "on the pending hosts when the timeout passed: a slow task", "Raise create in the resource's timeouts block", "check the GSE agent"},
		},
		// A task GSE has not queued after the timeout (1000115 on every poll)
		// is slow, not a failing endpoint.
		"task never queued": {
			polls: &simulator.TaskPolls{Unqueued: 1 << 20},
			want: []string{"did not finish on 1 of 1 hosts in the", "it ran before the deadline (context deadline exceeded):", "still pending",
				"GSE had not finished task", "a slow task", "Raise create in the resource's timeouts block"},
		},
		"host at 115": {
			hostFault: simulator.HostFault{API: "operate_proc_v2", IP: "10.0.0.1", Code: 115, Times: simulator.Forever},
			want: []string{"did not finish on 1 of 1 hosts in the", "it ran before the deadline (context deadline exceeded):", "10.0.0.1 (bk_cloud_id 0): still pending",
				"GSE had not finished task", "on the pending hosts when the timeout passed: a slow task", "Raise create in the resource's timeouts block", "check the GSE agent"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			acctest.InModes(t, func(t *testing.T, env *acctest.Env) {
				e := faultEnvOf(env, "max_retries = 20", slowRetries)
				e.apply(t,
					resource.TestStep{
						PreConfig: func() {
							if tc.fault.API != "" {
								e.Sim.AddFault(tc.fault)
							}
							if tc.hostFault.API != "" {
								e.Sim.AddHostFault(tc.hostFault)
							}
							if tc.polls != nil {
								e.Sim.SetTaskPolls(*tc.polls)
							}
						},
						Config:      e.procConfig(`timeouts = { create = "2s", delete = "20s" }`),
						ExpectError: acctest.Wrapped(tc.want...),
					},
					resource.TestStep{
						PreConfig: func() {
							e.Sim.ClearFaults()
							e.Sim.SetTaskPolls(simulator.TaskPolls{Unqueued: 2, Pending: 2}) // acctest's
						},
						Config: e.procConfig(`timeouts = { create = "2s", delete = "20s" }`),
						Check:  e.SimCheck(0, "10.0.0.1", acctest.HostedAndRunning),
					},
				)
			})
		})
	}
}

// Item 10: a server that echoes the request puts no configured secret into
// Terraform's error; the echo is there, with the secrets redacted.
func TestAccManagedProcessFaults_echoedSecretsRedacted(t *testing.T) {
	t.Parallel()
	e := newFaultEnv(t, fmt.Sprintf("bk_token = %q", acctest.Token), nil)
	cfg := e.procConfig("")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		CheckDestroy:             e.CheckSimEmpty,
		ErrorCheck: func(err error) error {
			msg := err.Error()
			for _, secret := range []string{acctest.AppSecret, acctest.Token} {
				if strings.Contains(msg, secret) {
					return fmt.Errorf("a secret reached Terraform's error: %s", msg)
				}
			}
			if !strings.Contains(msg, `"bk_app_secret":"[redacted]"`) || !strings.Contains(msg, `"bk_token":"[redacted]"`) {
				return fmt.Errorf("want the echoed request with its secrets redacted, got: %s", msg)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				PreConfig: func() { e.Sim.AddFault(simulator.Fault{API: "register_proc_info", Echo: true}) },
				Config:    cfg,
				Check:     func(*terraform.State) error { return errors.New("the apply succeeded despite the refused register") },
			},
			{
				Config: cfg,
				Check:  e.SimCheck(0, "10.0.0.1", acctest.HostedAndRunning),
			},
		},
	})
}
