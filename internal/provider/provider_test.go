package provider

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

const (
	testAppCode   = "tf-acc"
	testAppSecret = "acc-secret"
)

// testEnv is one simulator behind an httptest server, and providers wired to it.
type testEnv struct {
	sim *simulator.Server
	url string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	sim := simulator.New(simulator.Options{AppCode: testAppCode, AppSecret: testAppSecret, TaskPolls: simulator.TaskPolls{Unqueued: 2, Pending: 2}})
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	return &testEnv{sim: sim, url: srv.URL}
}

// factories serve the provider in-process, tuned to poll and back off in milliseconds.
func (e *testEnv) factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"gse": NewProtocol6(&gseProvider{version: "test", tune: func(c *gse.Config) {
			c.PollInitial, c.PollMax = time.Millisecond, 10*time.Millisecond
			c.RetryWaitMin, c.RetryWaitMax = time.Millisecond, 10*time.Millisecond
		}}),
	}
}

// providerBlock configures the provider for the simulator.
func (e *testEnv) providerBlock() string {
	return fmt.Sprintf(`
provider "gse" {
  endpoint   = %q
  app_code   = %q
  app_secret = %q
  username   = "admin"
}
`, e.url, testAppCode, testAppSecret)
}

// checkSimEmpty is a CheckDestroy: nothing may be left registered.
func (e *testEnv) checkSimEmpty(*terraform.State) error {
	if p := e.sim.Processes(); len(p) != 0 {
		return fmt.Errorf("processes left in GSE after destroy: %+v", p)
	}
	if p := e.sim.JobProcesses(); len(p) != 0 {
		return fmt.Errorf("processes left hosted through JOB after destroy: %+v", p)
	}
	return nil
}

func TestProviderConfigErrors(t *testing.T) {
	e := newTestEnv(t)
	for _, env := range []string{"BK_COMPONENT_API_URL", "BK_APP_CODE", "BK_APP_SECRET", "BK_USERNAME", "BK_TOKEN"} {
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
		{`provider "gse" {}`, `Set endpoint in the provider block or the BK_COMPONENT_API_URL`},
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
}`, `max_retries value must be between 0 and 20`},
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
	dir := t.TempDir()
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(dir, "%s.log"))
	e.sim.AddFault(simulator.Fault{API: "register_proc_info", HTTPStatus: 500}) // a retry is logged too
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.factories(),
		CheckDestroy:             e.checkSimEmpty,
		Steps:                    []resource.TestStep{{Config: e.config(proc{hosts: []string{"0:10.0.0.1"}})}},
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
	for _, want := range []string{"GSE API call", "api=register_proc_info", "retrying GSE API call", "request_id=", "attempts=2", "elapsed_ms="} {
		if !strings.Contains(log, want) {
			t.Errorf("the provider's log lacks %q", want)
		}
	}
	if i := strings.Index(log, testAppSecret); i >= 0 {
		t.Errorf("the app secret is in the provider's log: ...%s...", log[max(0, i-300):min(len(log), i+100)])
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
