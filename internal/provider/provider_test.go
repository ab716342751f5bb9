package provider_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

func TestProviderConfigErrors(t *testing.T) {
	e := acctest.NewEnv(t)
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
  gateway_url = "` + e.URL + `"
  app_code = "a"
}`, `Set app_secret in the provider block`},
		{`provider "gse" {
  gateway_url = "bkapi.example.com/api/bk-gse/prod"
}`, `gateway_url must be an http:// or https:// URL`},
		{`provider "gse" {
  gateway_url = "` + e.URL + `"
  tenant_id = ""
}`, `tenant_id string length must be at least 1`},
		{`provider "gse" {
  endpoint = "` + e.URL + `"
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
  endpoint = "` + e.URL + `"
  app_code = "a"
  app_secret = "s"
  username = "u"
  ca_cert_pem = "not a pem"
}`, `Invalid ca_cert_pem`},
	} {
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps:                    []resource.TestStep{{Config: tc.provider + ds, ExpectError: regexp.MustCompile(tc.want)}},
		})
	}
}

// The environment variables alone configure the provider.
func TestProviderConfigFromEnv(t *testing.T) {
	e := acctest.NewEnv(t)
	t.Setenv("BK_COMPONENT_API_URL", e.URL)
	t.Setenv("BK_APP_CODE", acctest.AppCode)
	t.Setenv("BK_APP_SECRET", acctest.AppSecret)
	t.Setenv("BK_TOKEN", "token-from-env")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
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
	if e.Sim.Calls("get_proc_status_v2") == 0 {
		t.Fatal("the data source never called GSE")
	}
}

// Secrets never reach the provider's log, even at TRACE, while the calls are logged.
func TestAccProviderLogsNoSecrets(t *testing.T) {
	e := acctest.NewEnv(t)
	logsNoSecrets(t, e, e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1"}}), "register_proc_info", acctest.AppSecret)
}

// The same through the gateway, authenticated by an access token.
func TestAccProviderLogsNoSecretsGateway(t *testing.T) {
	e := acctest.NewGatewayEnv(t, func(o *simulator.Options) { o.AccessToken = acctest.Token })
	logsNoSecrets(t, e, acctest.WithAccessToken(t, e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1"}}), acctest.Token), "list_agent_state", acctest.Token)
}

// logsNoSecrets applies cfg at TF_LOG=TRACE, with the first call (api) failing
// once so that a retry is logged, and checks the provider's log holds the
// calls and none of secrets.
func logsNoSecrets(t *testing.T, e *acctest.Env, cfg, api string, secrets ...string) {
	dir := t.TempDir()
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(dir, "%s.log"))
	e.Sim.AddFault(simulator.Fault{API: api, HTTPStatus: 500}) // a retry is logged too
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
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

// gateway_url, tenant_id and access_token alone (or from their environment
// variables) configure the provider: no endpoint, no app, no user.
func TestProviderGatewayConfigFromEnv(t *testing.T) {
	sim := simulator.New(simulator.Options{TenantID: "t1", AccessToken: acctest.Token})
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	e := &acctest.Env{Sim: sim, URL: srv.URL}
	for _, env := range []string{"BK_COMPONENT_API_URL", "BK_APP_CODE", "BK_APP_SECRET", "BK_USERNAME", "BK_TOKEN"} {
		t.Setenv(env, "")
	}
	t.Setenv("BKAPP_BK_GSE_APIGATEWAY", srv.URL)
	t.Setenv("BK_TENANT_ID", "t1")
	t.Setenv("BK_ACCESS_TOKEN", acctest.Token)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
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
		ProtoV6ProviderFactories: e.Factories(),
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
