package provider_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// The README and the rendered docs, checked as a user would follow them.

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeSection is the text of README's "## title" section.
func readmeSection(t *testing.T, title string) string {
	t.Helper()
	readme := readRepoFile(t, "README.md")
	_, after, ok := strings.Cut(readme, "\n## "+title+"\n")
	if !ok {
		t.Fatalf("README has no section %q", title)
	}
	section, _, _ := strings.Cut(after, "\n## ")
	return section
}

// TestAccREADMETryIt follows README's "Try it" override (where make build
// puts the provider) with a configuration that calls a module: plan says the
// module is not installed, `terraform get` installs it without the network
// (a proxy that refuses every connection), and plan then works, as the
// Install section says.
func TestAccREADMETryIt(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		var err error
		if tf, err = exec.LookPath("terraform"); err != nil {
			t.Skip("no terraform CLI")
		}
	}
	if !strings.Contains(readmeSection(t, "Install"), "run `terraform get`") {
		t.Error("README's Install section does not say to run terraform get for modules")
	}
	if !strings.Contains(readRepoFile(t, "GNUmakefile"), "BIN := $(CURDIR)/bin\n") {
		t.Fatal("GNUmakefile no longer builds into bin/: update README's Try it section and this test")
	}
	block := regexp.MustCompile("(?s)```sh\n(make build\n.*?)```").FindStringSubmatch(readmeSection(t, "Try it against the simulator"))
	if block == nil {
		t.Fatal("README's Try it section has no sh block starting with make build")
	}
	rc := regexp.MustCompile(`(?s)cat >bin/dev\.tfrc <<EOF\n(.*?)\nEOF\nexport TF_CLI_CONFIG_FILE="\$PWD/bin/dev\.tfrc"\n`).FindStringSubmatch(block[1])
	if rc == nil || !strings.Contains(rc[1], `"registry.terraform.io/bk-gse/gse" = "$PWD/bin"`) {
		t.Fatalf("README's Try it block does not write a dev_overrides for $PWD/bin into TF_CLI_CONFIG_FILE:\n%s", block[1])
	}

	repo := t.TempDir() // $PWD of the README's commands
	bin := filepath.Join(repo, "bin")
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-gse"), "../..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tfrc := filepath.Join(bin, "dev.tfrc")
	if err := os.WriteFile(tfrc, []byte(strings.ReplaceAll(rc[1], "$PWD", repo)), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(repo, "config")
	const required = "terraform {\n  required_providers {\n    gse = { source = \"bk-gse/gse\" }\n  }\n}\n"
	for name, text := range map[string]string{
		"main.tf":               required + "module \"hosts\" { source = \"./modules/hosts\" }\noutput \"n\" { value = module.hosts.n }\n",
		"modules/hosts/main.tf": required + "output \"n\" { value = 3 }\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(tf, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+tfrc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
			"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("plan", "-no-color", "-input=false"); err == nil || !strings.Contains(out, "Module not installed") {
		t.Fatalf("plan before terraform get: %v, want Module not installed:\n%s", err, out)
	}
	if out, err := run("get", "-no-color"); err != nil {
		t.Fatalf("terraform get offline: %v\n%s", err, out)
	}
	if out, err := run("plan", "-no-color", "-input=false"); err != nil || !strings.Contains(out, "n = 3") {
		t.Fatalf("plan after terraform get: %v\n%s", err, out)
	}
}

// TestDocsPassHostsAsTheyAre: the examples (and the docs rendered from
// them) give gse_managed_process's hosts to the status and operation
// blocks as they are, agent ids included, never rebuilt from ip and
// bk_cloud_id, which drops agent_id (gateway mode).
func TestDocsPassHostsAsTheyAre(t *testing.T) {
	dropsAgentID := regexp.MustCompile(`\{\s*ip\s*=\s*h\.ip,\s*bk_cloud_id\s*=\s*h\.bk_cloud_id\s*\}`)
	files := []string{"README.md"}
	for _, glob := range []string{"docs/*/*.md", "examples/*/*/*.tf", "templates/*/*.tmpl"} {
		m, err := filepath.Glob(filepath.Join("..", "..", glob))
		if err != nil || len(m) == 0 {
			t.Fatalf("%s: %v", glob, err)
		}
		for _, f := range m {
			files = append(files, strings.TrimPrefix(f, "../../"))
		}
	}
	for _, f := range files {
		if loc := dropsAgentID.FindStringIndex(readRepoFile(t, f)); loc != nil {
			t.Errorf("%s rebuilds hosts from ip and bk_cloud_id, dropping agent_id: pass gse_managed_process.<name>.hosts as it is", f)
		}
	}
	for _, f := range []string{"README.md", "docs/data-sources/process_status.md"} {
		if !strings.Contains(readRepoFile(t, f), "hosts = gse_managed_process.agent.hosts") {
			t.Errorf("%s: the gse_process_status example does not pass hosts = gse_managed_process.agent.hosts", f)
		}
	}
}

// TestAccExamplesHostsByAgentID applies the gse_process_status and
// parse_status_content examples through the gateway, to a process whose
// hosts are an agent id and an IP: both are read back, by what they were
// given as.
func TestAccExamplesHostsByAgentID(t *testing.T) {
	t.Parallel()
	e := acctest.NewGatewayEnv(t, nil)
	e.Sim.AddAgent(acctest.AgentA, 0, "10.0.0.5")
	cfg := e.Config(acctest.Proc{Hosts: []string{"agent:" + acctest.AgentA, "0:10.0.0.1"}, Extra: "running = true"})
	for _, f := range []string{"examples/data-sources/gse_process_status/data-source.tf", "examples/functions/parse_status_content/function.tf"} {
		cfg += "\n" + strings.ReplaceAll(readRepoFile(t, f), "gse_managed_process.agent.", "gse_managed_process.test.")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gse_process_status.agent", tfjsonpath.New("proc_infos"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"agent_id": knownvalue.StringExact(acctest.AgentA), "ip": knownvalue.Null()}),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"agent_id": knownvalue.Null(), "ip": knownvalue.StringExact("10.0.0.1")}),
				})),
				statecheck.ExpectKnownOutputValue("agent_status", knownvalue.MapSizeExact(2)),
				statecheck.ExpectKnownOutputValueAtPath("agent_status", tfjsonpath.New(acctest.AgentA), knownvalue.NotNull()),
				statecheck.ExpectKnownOutputValueAtPath("pids", tfjsonpath.New(acctest.AgentA), knownvalue.NotNull()),
				statecheck.ExpectKnownOutputValueAtPath("pids", tfjsonpath.New("0:10.0.0.1"), knownvalue.NotNull()),
			},
		}},
	})
}

// TestFunctionParseStatusContentExample: the input and output the
// function's docs show are what it returns.
func TestFunctionParseStatusContentExample(t *testing.T) {
	example := readRepoFile(t, "examples/functions/parse_status_content/function.tf")
	input := regexp.MustCompile(`(?s)\nlocals \{\n  status_content = .*?\n\}\n`).FindString(example)
	output := regexp.MustCompile(`value = provider::gse::parse_status_content\(local\.status_content\)\n((?:  # .*\n)+)`).FindStringSubmatch(example)
	if input == "" || output == nil {
		t.Fatal("the example lost its input (locals status_content) or its documented output (a comment under the call)")
	}
	documented := regexp.MustCompile(`(?m)^  # ?`).ReplaceAllString(output[1], "")
	if !strings.Contains(readRepoFile(t, "docs/functions/parse_status_content.md"), strings.TrimSpace(output[1])) {
		t.Error("docs/functions/parse_status_content.md does not show the example's output: run make generate")
	}
	functionTest(t, input+"locals {\n  documented = "+documented+"}\n"+
		`output "as_documented" { value = jsonencode(provider::gse::parse_status_content(local.status_content)) == jsonencode(local.documented) }`,
		[]statecheck.StateCheck{statecheck.ExpectKnownOutputValue("as_documented", knownvalue.Bool(true))}, "")
}
