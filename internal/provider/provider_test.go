package provider_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

const (
	testAppCode   = "tf-acc"
	testAppSecret = "acc-secret"
	testRate      = 1000 // requests/s of the tests' providers unless rate_limit is set
)

// testEnv is one simulator behind an httptest server, and providers wired to
// it in one mode: GSE 1.0 through ESB, or GSE 2.0 through the API gateway.
type testEnv struct {
	sim     *simulator.Server
	url     string
	gateway bool
}

// testTenant is the tenant of the gateway simulator, which checks it.
const testTenant = "tenant-acc"

// testMode is how the provider reaches GSE in a test.
type testMode struct {
	name    string
	gateway bool
}

var testModes = []testMode{{"esb", false}, {"gateway", true}}

func newTestEnv(t *testing.T) *testEnv { return newTestEnvIn(t, testModes[0]) }

func newTestEnvIn(t *testing.T, m testMode) *testEnv { return newTestEnvWith(t, m, nil) }

// newTestEnvWith is newTestEnvIn with simulator options changed by tweak.
func newTestEnvWith(t *testing.T, m testMode, tweak func(*simulator.Options)) *testEnv {
	t.Helper()
	opts := simulator.Options{AppCode: testAppCode, AppSecret: testAppSecret, TaskPolls: simulator.TaskPolls{Unqueued: 2, Pending: 2}}
	if m.gateway {
		opts.TenantID = testTenant
	}
	if tweak != nil {
		tweak(&opts)
	}
	sim := simulator.New(opts)
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	return &testEnv{sim: sim, url: srv.URL, gateway: m.gateway}
}

// inModes runs test once per mode, as parallel subtests each with its own
// simulator: the same steps and checks must hold through ESB and the gateway.
func inModes(t *testing.T, test func(t *testing.T, e *testEnv)) {
	for _, m := range testModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			test(t, newTestEnvIn(t, m))
		})
	}
}

// factories serve the provider in-process, tuned to poll and back off in milliseconds.
func (e *testEnv) factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"gse": packed.NewProtocol6(provider.NewTuned("test", func(c *gse.Config) {
			c.PollInitial, c.PollMax = time.Millisecond, 10*time.Millisecond
			c.RetryWaitMin, c.RetryWaitMax = time.Millisecond, 10*time.Millisecond
			if c.RateLimit == 0 {
				c.RateLimit = testRate // not the adaptive ramp: tests poll in milliseconds against short timeouts
			}
		})()),
	}
}

// providerBlock configures the provider for the simulator: endpoint, or
// gateway_url with tenant_id (the simulator serves both families at its root).
func (e *testEnv) providerBlock() string {
	root := "endpoint    = " + strconv.Quote(e.url)
	if e.gateway {
		root = fmt.Sprintf("gateway_url = %q\n  tenant_id   = %q", e.url, testTenant)
	}
	return fmt.Sprintf(`
provider "gse" {
  %s
  app_code   = %q
  app_secret = %q
  username   = "admin"
}
`, root, testAppCode, testAppSecret)
}

// client is a GSE client of this env's mode, polling in milliseconds, for
// setting the simulator up behind Terraform's back.
func (e *testEnv) client(t *testing.T) *gse.Client {
	t.Helper()
	cfg := gse.Config{Endpoint: e.url, AppCode: testAppCode, AppSecret: testAppSecret, Username: "admin", PollInitial: time.Millisecond, PollMax: time.Millisecond}
	if e.gateway {
		cfg.Endpoint, cfg.GatewayURL, cfg.TenantID = "", e.url, testTenant
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
func (e *testEnv) gone(p simulator.Process) bool { return e.gateway && !p.Hosted }

// checkSimEmpty is a CheckDestroy: nothing may be left registered (through
// the gateway: nothing left hosted, see gone; through JOB: nothing hosted).
func (e *testEnv) checkSimEmpty(*terraform.State) error {
	var left []simulator.Process
	for _, p := range e.sim.Processes() {
		if !e.gone(p) {
			left = append(left, p)
		}
	}
	if len(left) != 0 {
		return fmt.Errorf("processes left in GSE after destroy: %+v", left)
	}
	// Unregistering hosting through JOB (op_type 4) leaves the process known to the agent, unhosted.
	for _, p := range e.sim.JobProcesses() {
		if p.Hosted {
			return fmt.Errorf("processes left hosted through JOB after destroy: %+v", p)
		}
	}
	return nil
}

func TestProviderConfigErrors(t *testing.T) {
	e := newTestEnv(t)
	for _, env := range []string{"BK_COMPONENT_API_URL", "BK_APP_CODE", "BK_APP_SECRET", "BK_USERNAME", "BK_TOKEN", "BKAPP_BK_GSE_APIGATEWAY", "BK_TENANT_ID", "BK_ACCESS_TOKEN"} {
		t.Setenv(env, "")
	}
	ds := `
data "gse_process_status" "x" {
  meta  = { namespace = "gse", name = "p" }
  hosts = [{ ip = "10.0.0.1", bk_cloud_id = 0 }]
}`
	for _, tc := range []struct {
		provider string
		want     string
	}{
		{`provider "gse" {}`, `Set endpoint \(or BK_COMPONENT_API_URL\) to the ESB root for GSE 1\.0, or\s+gateway_url`},
		{`provider "gse" {}`, `Set app_code in the provider block or the BK_APP_CODE`},
		{`provider "gse" {
  gateway_url = "` + e.url + `"
  app_code = "a"
}`, `Set app_secret in the provider block`},
		{`provider "gse" {
  gateway_url = "bkapi.example.com/api/bk-gse/prod"
}`, `gateway_url must be an http:// or https:// URL`},
		{`provider "gse" {
  gateway_url = "` + e.url + `"
  tenant_id = ""
}`, `tenant_id string length must be at least 1`},
		{`provider "gse" {
  endpoint = "` + e.url + `"
  app_code = "a"
  app_secret = "s"
}`, `Set username \(or BK_USERNAME\)`},
		{`provider "gse" {
  endpoint = "paas.example.com"
}`, `endpoint must be an http:// or https:// URL`},
		{`provider "gse" {
  request_timeout = "soon"
}`, `request_timeout must be a positive duration`},
		{`provider "gse" {
  max_retries = 50
}`, `max_retries must be 0 to 20, got 50\.`},
		{`provider "gse" {
  ca_cert_pem = "not a pem"
}`, `ca_cert_pem must hold at least one PEM-encoded certificate`},
		{`provider "gse" {
  endpoint = "` + e.url + `"
  app_code = "a"
  app_secret = "s"
  username = "u"
  ca_cert_pem = "not a pem"
}`, `Invalid ca_cert_pem`},
	} {
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: e.factories(),
			Steps:                    []resource.TestStep{{Config: tc.provider + ds, ExpectError: regexp.MustCompile(tc.want)}},
		})
	}
}

// The environment variables alone configure the provider.
func TestProviderConfigFromEnv(t *testing.T) {
	e := newTestEnv(t)
	t.Setenv("BK_COMPONENT_API_URL", e.url)
	t.Setenv("BK_APP_CODE", testAppCode)
	t.Setenv("BK_APP_SECRET", testAppSecret)
	t.Setenv("BK_TOKEN", "token-from-env")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		Steps: []resource.TestStep{{
			Config: `
data "gse_process_status" "x" {
  meta  = { namespace = "gse", name = "absent" }
  hosts = [{ ip = "10.0.0.1", bk_cloud_id = 0 }]
}`,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.gse_process_status.x", "proc_infos.0.status", "unregistered"),
				resource.TestCheckResourceAttr("data.gse_process_status.x", "all_running", "false"),
			),
		}},
	})
	if e.sim.Calls("get_proc_status_v2") == 0 {
		t.Fatal("the data source never called GSE")
	}
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// Secrets never reach the provider's log, even at TRACE, while the calls are logged.
func TestAccProviderLogsNoSecrets(t *testing.T) {
	e := newTestEnv(t)
	logsNoSecrets(t, e, e.config(proc{hosts: []string{"0:10.0.0.1"}}), "register_proc_info", testAppSecret)
}

// The same through the gateway, authenticated by an access token.
func TestAccProviderLogsNoSecretsGateway(t *testing.T) {
	e := newGatewayEnv(t, func(o *simulator.Options) { o.AccessToken = testToken })
	logsNoSecrets(t, e, withAccessToken(t, e.config(proc{hosts: []string{"0:10.0.0.1"}}), testToken), "list_agent_state", testToken)
}

// logsNoSecrets applies cfg at TF_LOG=TRACE, with the first call (api) failing
// once so that a retry is logged, and checks the provider's log holds the
// calls and none of secrets.
func logsNoSecrets(t *testing.T, e *testEnv, cfg, api string, secrets ...string) {
	dir := t.TempDir()
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(dir, "%s.log"))
	e.sim.AddFault(simulator.Fault{API: api, HTTPStatus: 500}) // a retry is logged too
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		CheckDestroy:             e.checkSimEmpty,
		Steps:                    []resource.TestStep{{Config: cfg}},
	})
	raw, err := os.ReadFile(filepath.Join(dir, t.Name()+".log"))
	if err != nil {
		t.Fatal(err)
	}
	// The test harness itself logs the configuration; check every entry logged in the provider's scope.
	var provider []string
	for _, entry := range regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT`).Split(string(raw), -1) {
		if strings.Contains(entry, "tf_provider_addr=") {
			provider = append(provider, entry)
		}
	}
	log := strings.Join(provider, "")
	for _, want := range []string{"GSE API call", "api=" + api, "retrying GSE API call", "request_id=", "attempts=2", "elapsed_ms="} {
		if !strings.Contains(log, want) {
			t.Errorf("the provider's log lacks %q", want)
		}
	}
	for _, secret := range secrets {
		if i := strings.Index(log, secret); i >= 0 {
			t.Errorf("a secret is in the provider's log: ...%s...", log[max(0, i-300):min(len(log), i+100)])
		}
	}
}

// planError is a configuration and the pattern of the plan-time error it must give.
type planError struct{ cfg, want string }

// expectPlanErrors plans each configuration and expects its error.
func (e *testEnv) expectPlanErrors(t *testing.T, cases []planError) {
	t.Helper()
	for _, tc := range cases {
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: e.factories(),
			Steps:                    []resource.TestStep{{Config: tc.cfg, PlanOnly: true, ExpectError: regexp.MustCompile(tc.want)}},
		})
	}
}

// edited returns base with from replaced by to, failing the test when from is not there.
func edited(t *testing.T, base, from, to string) string {
	t.Helper()
	cfg := strings.Replace(base, from, to, 1)
	if cfg == base {
		t.Fatalf("%q not found in the configuration", from)
	}
	return cfg
}

// gateway_url, tenant_id and access_token alone (or from their environment
// variables) configure the provider: no endpoint, no app, no user.
func TestProviderGatewayConfigFromEnv(t *testing.T) {
	sim := simulator.New(simulator.Options{TenantID: "t1", AccessToken: testToken})
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	e := &testEnv{sim: sim, url: srv.URL}
	for _, env := range []string{"BK_COMPONENT_API_URL", "BK_APP_CODE", "BK_APP_SECRET", "BK_USERNAME", "BK_TOKEN"} {
		t.Setenv(env, "")
	}
	t.Setenv("BKAPP_BK_GSE_APIGATEWAY", srv.URL)
	t.Setenv("BK_TENANT_ID", "t1")
	t.Setenv("BK_ACCESS_TOKEN", testToken)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		Steps: []resource.TestStep{{
			Config: `
data "gse_process_status" "x" {
  meta  = { namespace = "gse", name = "absent" }
  hosts = [{ ip = "2001:db8::1", bk_cloud_id = 0 }, { agent_id = "0200000007525400f355781710390005465c" }]
}`,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.gse_process_status.x", "proc_infos.0.agent_id", "0200000007525400f355781710390005465c"),
				resource.TestCheckNoResourceAttr("data.gse_process_status.x", "proc_infos.0.ip"),
				resource.TestCheckResourceAttr("data.gse_process_status.x", "proc_infos.1.ip", "2001:db8::1"),
				resource.TestCheckResourceAttr("data.gse_process_status.x", "all_running", "false"),
			),
		}},
	})
	if sim.Calls("get_proc_status_v2") == 0 {
		t.Fatal("the data source never called the gateway")
	}
	// A JOB data source needs endpoint, and says so.
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		Steps: []resource.TestStep{{
			Config: `
data "gse_job_process_status" "x" {
  bk_biz_id  = 2
  proc_name  = "nginx"
  setup_path = "/data/nginx"
  pid_path   = "/data/nginx/nginx.pid"
  ip_list    = [{ ip = "10.0.0.1", bk_cloud_id = 0 }]
}`,
			ExpectError: regexp.MustCompile(`gse_job_process_status calls the JOB platform's APIs, which BlueKing ESB\s+serves`),
		}},
	})
}
