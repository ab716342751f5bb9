package acctest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// cliRun runs the Terraform CLI the acceptance tests use (TF_ACC_TERRAFORM_PATH,
// else terraform on PATH) in a directory against the provider served
// in-process, for what terraform-plugin-testing cannot drive yet, such as
// `terraform apply -invoke`, or exit codes. NewCLIRun skips unless TF_ACC is
// set and the CLI is Terraform 1.14 or later (actions).
type cliRun struct {
	t        *testing.T
	bin      string
	Dir      string
	env      []string
	provider string // the provider block
	version  *version.Version
}

// RequiredProviders is the terraform block every configuration of the provider holds.
const RequiredProviders = `terraform {
  required_providers {
    gse = { source = "bk-gse/gse" }
  }
}
`

// WriteMain makes config, with the provider block, the configuration of r.
func WriteMain(r *cliRun, config string) error {
	cfg := RequiredProviders + r.provider + config
	return os.WriteFile(filepath.Join(r.Dir, "main.tf"), []byte(cfg), 0o600)
}

// NewCLIRun is NewCLIRunFrom on any CLI this suite runs on.
func NewCLIRun(t *testing.T, e *Env, config string) *cliRun {
	t.Helper()
	return NewCLIRunFrom(t, e, "1.14.0", config)
}

// CLI is the path of the CLI the acceptance tests run on
// (TF_ACC_TERRAFORM_PATH, else terraform on PATH); it skips the test
// without TF_ACC or a CLI.
func CLI(t *testing.T) string {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	if bin := os.Getenv("TF_ACC_TERRAFORM_PATH"); bin != "" {
		return bin
	}
	bin, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("no terraform CLI")
	}
	return bin
}

// NewCLIRunFrom is NewCLIRun on any CLI of version minVersion or later.
func NewCLIRunFrom(t *testing.T, e *Env, minVersion, config string) *cliRun {
	t.Helper()
	bin := CLI(t)
	out, err := exec.Command(bin, "version", "-json").Output()
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err != nil || json.Unmarshal(out, &v) != nil {
		t.Fatalf("%s version -json: %v", bin, err)
	}
	ver, err := version.NewVersion(v.Version)
	if err != nil || ver.LessThan(version.Must(version.NewVersion(minVersion))) {
		t.Skipf("Terraform CLI version %s is below %s: skipping test", v.Version, minVersion)
	}

	ctx, cancel := context.WithCancel(context.Background())
	reattach, closed := make(chan *plugin.ReattachConfig, 1), make(chan struct{})
	factory := e.Factories()["gse"]
	server, err := factory()
	if err != nil {
		t.Fatal(err)
	}
	// The address the CLI resolves "bk-gse/gse" to: OpenTofu's registry for
	// tofu (make test sets TF_ACC_PROVIDER_HOST, as terraform-plugin-testing reads it).
	addr := "registry.terraform.io/bk-gse/gse"
	if host := os.Getenv("TF_ACC_PROVIDER_HOST"); host != "" {
		addr = host + "/bk-gse/gse"
	}
	go func() {
		err := tf6server.Serve(addr, func() tfprotov6.ProviderServer { return server },
			tf6server.WithDebug(ctx, reattach, closed), tf6server.WithoutLogStderrOverride(), tf6server.WithLoggingSink(t))
		if err != nil {
			t.Error(err)
		}
	}()
	rc := <-reattach
	t.Cleanup(func() { cancel(); <-closed })
	info, _ := json.Marshal(map[string]any{addr: map[string]any{
		"Protocol": rc.Protocol, "ProtocolVersion": rc.ProtocolVersion, "Pid": rc.Pid, "Test": rc.Test,
		"Addr": map[string]string{"Network": rc.Addr.Network(), "String": rc.Addr.String()},
	}})
	r := &cliRun{t: t, bin: bin, Dir: t.TempDir(), env: append(os.Environ(), "TF_REATTACH_PROVIDERS="+string(info), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1"),
		provider: e.ProviderBlock(), version: ver}
	if err := WriteMain(r, config); err != nil {
		t.Fatal(err)
	}
	if out, err := r.Run("init", "-no-color", "-input=false"); err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}
	return r
}

// Below reports whether the CLI is older than version v (OpenTofu counts by its own numbers).
func (r *cliRun) Below(v string) bool { return r.version.LessThan(version.Must(version.NewVersion(v))) }

// WriteFile writes text as the file name of r's directory, failing the test on error.
func (r *cliRun) WriteFile(name, text string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.Dir, name), []byte(text), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// Run runs the CLI with args and returns its combined output.
func (r *cliRun) Run(args ...string) (string, error) {
	out, _, err := r.Exit(args...)
	return out, err
}

// Must is Run, failing the test with the CLI's output when the command fails.
func (r *cliRun) Must(args ...string) string {
	r.t.Helper()
	out, err := r.Run(args...)
	if err != nil {
		r.t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Exit is run, with the CLI's exit code.
func (r *cliRun) Exit(args ...string) (string, int, error) {
	cmd := exec.Command(r.bin, args...)
	cmd.Dir, cmd.Env = r.Dir, r.env
	out, err := cmd.CombinedOutput()
	var code int
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return string(out), code, err
}

// TF114Versions skips a test below Terraform 1.14, which brought identity
// import, list resources and actions. OpenTofu 1.10 reports 1.10 and skips too.
var TF114Versions = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)}
