package acctest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// The app of the simulator and of every provider configuration of the tests.
const (
	AppCode   = "tf-acc"
	AppSecret = "acc-secret"
	Rate      = 1000 // requests/s of the tests' providers unless rate_limit is set
)

// Env is one simulator behind an httptest server, and providers wired to
// it in one mode: GSE 1.0 through ESB, or GSE 2.0 through the API gateway.
type Env struct {
	Sim     *simulator.Server
	URL     string
	Gateway bool
	// AdaptiveRate leaves a provider without rate_limit on the adaptive rate,
	// as users run it; Factories otherwise fixes it at Rate.
	AdaptiveRate bool
}

// Tenant is the tenant of the gateway simulator, which checks it.
const Tenant = "tenant-acc"

// Mode is how the provider reaches GSE in a test.
type Mode struct {
	Name    string
	Gateway bool
}

// Modes are the ways a test reaches GSE: through ESB and through the gateway.
var Modes = []Mode{{"esb", false}, {"gateway", true}}

// NewEnv is an Env through ESB.
func NewEnv(t *testing.T) *Env { return NewEnvIn(t, Modes[0]) }

// NewEnvIn is an Env in mode m.
func NewEnvIn(t *testing.T, m Mode) *Env { return NewEnvWith(t, m, nil) }

// NewEnvWith is NewEnvIn with simulator options changed by tweak.
func NewEnvWith(t *testing.T, m Mode, tweak func(*simulator.Options)) *Env {
	t.Helper()
	opts := simulator.Options{AppCode: AppCode, AppSecret: AppSecret, TaskPolls: simulator.TaskPolls{Unqueued: 2, Pending: 2}}
	if m.Gateway {
		opts.TenantID = Tenant
	}
	if tweak != nil {
		tweak(&opts)
	}
	sim := simulator.New(opts)
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	return &Env{Sim: sim, URL: srv.URL, Gateway: m.Gateway}
}

// InModes runs test once per mode, as parallel subtests each with its own
// simulator: the same steps and checks must hold through ESB and the gateway.
func InModes(t *testing.T, test func(t *testing.T, e *Env)) { InModesWith(t, nil, test) }

// InModesWith is InModes with simulator options changed by tweak.
func InModesWith(t *testing.T, tweak func(*simulator.Options), test func(t *testing.T, e *Env)) {
	for _, m := range Modes {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			test(t, NewEnvWith(t, m, tweak))
		})
	}
}

// Factories serve the provider in-process, tuned to poll and back off in milliseconds.
func (e *Env) Factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"gse": packed.NewProtocol6(provider.NewTuned("test", func(c *gse.Config) {
			c.PollInitial, c.PollMax = time.Millisecond, 10*time.Millisecond
			c.RetryWaitMin, c.RetryWaitMax = time.Millisecond, 10*time.Millisecond
			c.PaceDir = "" // tests neither read nor leave the machine's memory of the pace
			if c.RateLimit == 0 && !e.AdaptiveRate {
				c.RateLimit = Rate // not the adaptive ramp: tests poll in milliseconds against short timeouts
			}
		})()),
	}
}

// ProviderBlock configures the provider for the simulator: endpoint, or
// gateway_url with tenant_id (the simulator serves both families at its root).
func (e *Env) ProviderBlock() string {
	return "\nprovider \"gse\" {\n" + e.ProviderArgs() + "}\n"
}

// CMDBConfig is the provider for tests that read CMDB, then resources:
// through ESB, endpoint alone; through the gateway, the GSE and bk-cmdb
// gateways (the simulator serves both at its root) and endpoint for JOB.
func (e *Env) CMDBConfig(resources string) string {
	block := e.ProviderBlock()
	if e.Gateway {
		block = strings.Replace(block, "gateway_url", fmt.Sprintf("endpoint         = %q\n  cmdb_gateway_url = %q\n  gateway_url", e.URL, e.URL), 1)
	}
	return block + resources
}

// ProviderArgs are the lines of ProviderBlock inside its braces, to add to a
// provider block of an example.
func (e *Env) ProviderArgs() string {
	root := "endpoint    = " + strconv.Quote(e.URL)
	if e.Gateway {
		root = fmt.Sprintf("gateway_url = %q\n  tenant_id   = %q", e.URL, Tenant)
	}
	return fmt.Sprintf("  %s\n  app_code   = %q\n  app_secret = %q\n  username   = \"admin\"\n", root, AppCode, AppSecret)
}

// Client is a GSE client of this env's mode, polling in milliseconds, for
// setting the simulator up behind Terraform's back.
func (e *Env) Client(t *testing.T) *gse.Client {
	t.Helper()
	cfg := gse.Config{Endpoint: e.URL, AppCode: AppCode, AppSecret: AppSecret, Username: "admin", PollInitial: time.Millisecond, PollMax: time.Millisecond}
	if e.Gateway {
		cfg.Endpoint, cfg.GatewayURL, cfg.TenantID = "", e.URL, Tenant
	}
	c, err := gse.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// gone reports whether p no longer counts as a process of GSE: through ESB
// it would be unregistered (absent); GSE 2.0 has no unregister, so a stop or
// unhost ends it and the record stays, unhosted.
func (e *Env) gone(p simulator.Process) bool { return e.Gateway && !p.Hosted }

// CheckSimEmpty is a CheckDestroy: nothing may be left registered (through
// the gateway: nothing left hosted, see gone; through JOB: nothing hosted).
func (e *Env) CheckSimEmpty(*terraform.State) error {
	var left []simulator.Process
	for _, p := range e.Sim.GSE().Processes() {
		if !e.gone(p) {
			left = append(left, p)
		}
	}
	if len(left) != 0 {
		return fmt.Errorf("processes left in GSE after destroy: %+v", left)
	}
	// Unregistering hosting through JOB (op_type 4) leaves the process known to the agent, unhosted.
	for _, p := range e.Sim.JOB().Processes() {
		if p.Hosted {
			return fmt.Errorf("processes left hosted through JOB after destroy: %+v", p)
		}
	}
	return nil
}

// Sprintf is fmt.Sprintf, for configurations built inline.
func Sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// PlanError is a configuration and the pattern of the plan-time error it must give.
type PlanError struct{ Config, Want string }

// ExpectPlanErrors plans each configuration and expects its error.
func (e *Env) ExpectPlanErrors(t *testing.T, cases []PlanError) {
	t.Helper()
	for _, tc := range cases {
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps:                    []resource.TestStep{{Config: tc.Config, PlanOnly: true, ExpectError: regexp.MustCompile(tc.Want)}},
		})
	}
}

// Edited returns base with from replaced by to, failing the test when from is not there.
func Edited(t *testing.T, base, from, to string) string {
	t.Helper()
	cfg := strings.Replace(base, from, to, 1)
	if cfg == base {
		t.Fatalf("%q not found in the configuration", from)
	}
	return cfg
}

// Token is the access_token the gateway simulator accepts when a test sets it.
const Token = "acc-token-4f1e"

// Wrapped matches parts in order, across the line breaks Terraform puts into
// long error messages.
func Wrapped(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts)) // parts may be shared by parallel subtests
	for i, p := range parts {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}

// NewGatewayEnv is an Env through the gateway, its simulator changed by tweak.
func NewGatewayEnv(t *testing.T, tweak func(*simulator.Options)) *Env {
	return NewEnvWith(t, Modes[1], tweak)
}

// WrappedPattern lets each space of a pattern match Terraform's line wrapping.
func WrappedPattern(pattern string) string { return strings.ReplaceAll(pattern, " ", `\s+`) }

// WithAccessToken swaps the app and user of cfg's provider block for access_token.
func WithAccessToken(t *testing.T, cfg, token string) string {
	return Edited(t, cfg, fmt.Sprintf("app_code   = %q\n  app_secret = %q\n  username   = \"admin\"", AppCode, AppSecret),
		fmt.Sprintf("access_token = %q", token))
}

// ws is s as a pattern that matches across Terraform's line breaks.
func WrappedText(s string) string { return strings.ReplaceAll(regexp.QuoteMeta(s), " ", `\s+`) }

// Two agent ids of the 36-hex form, for hosts addressed by agent_id.
const (
	AgentA = "0200000007525400f355781710390005465c"
	AgentB = "0200000007525400f355781710390005465d"
)

// SimState is a state check that runs check against the simulator: for
// configurations with for_each, whose instances terraform-plugin-testing's
// legacy Check and CheckDestroy cannot hold (it converts the state to a form
// without string keys).
func SimState(check func() error) statecheck.StateCheck { return simState(check) }

type simState func() error

func (c simState) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = c()
}
