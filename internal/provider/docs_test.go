package provider_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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

// tryItBlock is the sh block of README's "Try it" section.
func tryItBlock(t *testing.T) string {
	t.Helper()
	block := regexp.MustCompile("(?s)```sh\n(make build\n.*?)```").FindStringSubmatch(readmeSection(t, "Try it against the simulator"))
	if block == nil {
		t.Fatal("README's Try it section has no sh block starting with make build")
	}
	return block[1]
}

// TestAccREADMETryIt runs README's "Try it" block as a user pastes it into a
// shell at the root of a fresh checkout (the repository's tracked files),
// with the CLI under test as terraform and a free port for the simulator's,
// and finds what its comments promise: proc-test applied and running, the
// drifted host named by the plan, repaired, destroyed, the try directory gone.
func TestAccREADMETryIt(t *testing.T) {
	t.Parallel()
	tf := acctest.CLI(t)
	for _, tool := range []string{"curl", "git", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("README's Try it needs %s", tool)
		}
	}
	repo := t.TempDir()
	// A fresh checkout of the working tree: tracked files and new ones not ignored.
	tracked, err := exec.Command("git", "-C", "../..", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(tracked), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join("..", "..", name))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		} else if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(repo, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := t.TempDir() // terraform on PATH is the CLI under test
	if err := os.Symlink(tf, filepath.Join(path, "terraform")); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	script := strings.ReplaceAll(tryItBlock(t), "127.0.0.1:8080", addr)
	// Stop the simulator however the block ends, so its output pipe closes.
	cmd := exec.Command("bash", "-e", "-c", "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"+script)
	cmd.Dir, cmd.WaitDelay = repo, 10*time.Second
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_") && !strings.HasPrefix(kv, "BK_") && !strings.HasPrefix(kv, "BKAPP_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "PATH="+path+string(os.PathListSeparator)+os.Getenv("PATH"), "CHECKPOINT_DISABLE=1")
	b, err := cmd.CombinedOutput()
	out := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(string(b), "") // what the user reads, without colours
	if err != nil {
		t.Fatalf("README's Try it block failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"Apply complete! Resources: 1 added",
		`"0:10.0.0.1" = "running, pid`,
		"1 host drifted",
		"10.0.0.2",
		"Apply complete! Resources: 0 added, 1 changed, 0 destroyed",
		"Destroy complete! Resources: 1 destroyed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("README's Try it output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, "try")); !os.IsNotExist(err) {
		t.Errorf("README's Try it left its try directory: %v", err)
	}
}

// TestAccREADMEInstallModules follows README's "Try it" override (where make
// build puts the provider) with a configuration that calls a module: plan
// says the module is not installed, `terraform get` installs it without the
// network (a proxy that refuses every connection), and plan then works, as
// the Install section says.
func TestAccREADMEInstallModules(t *testing.T) {
	tf := acctest.CLI(t)
	if !strings.Contains(readmeSection(t, "Install"), "run `terraform get`") {
		t.Error("README's Install section does not say to run terraform get for modules")
	}
	if !strings.Contains(readRepoFile(t, "GNUmakefile"), "BIN := $(CURDIR)/bin\n") {
		t.Fatal("GNUmakefile no longer builds into bin/: update README's Try it section and this test")
	}
	block := tryItBlock(t)
	rc := regexp.MustCompile(`(?s)cat >bin/dev\.tfrc <<EOF\n(.*?)\nEOF\nexport TF_CLI_CONFIG_FILE="\$PWD/bin/dev\.tfrc"\n`).FindStringSubmatch(block)
	if rc == nil || !strings.Contains(rc[1], `"registry.terraform.io/bk-gse/gse" = "$PWD/bin"`) {
		t.Fatalf("README's Try it block does not write a dev_overrides for $PWD/bin into TF_CLI_CONFIG_FILE:\n%s", block)
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
	required := acctest.RequiredProviders
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

// TestAccExamplesHostsByAgentID applies the gse_process_status example
// through the gateway with one of its hosts given by agent id: each host is
// read back, and keyed in the output, by what it was given as.
func TestAccExamplesHostsByAgentID(t *testing.T) {
	t.Parallel()
	e := acctest.NewGatewayEnv(t, nil)
	e.Sim.Gateway().AddAgent(acctest.AgentA, 0, "10.0.0.5")
	example := acctest.Edited(t, readRepoFile(t, "examples/data-sources/gse_process_status/data-source.tf"),
		`{ ip = "10.0.0.1", bk_cloud_id = 0 },`, `{ agent_id = "`+acctest.AgentA+`" },`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{{
			Config: e.ProviderBlock() + example,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gse_process_status.agent", tfjsonpath.New("proc_infos"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"agent_id": knownvalue.StringExact(acctest.AgentA), "ip": knownvalue.Null()}),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"agent_id": knownvalue.Null(), "ip": knownvalue.StringExact("10.0.0.2")}),
				})),
				statecheck.ExpectKnownOutputValue("agent_status", knownvalue.MapExact(map[string]knownvalue.Check{
					acctest.AgentA: knownvalue.StringRegexp(regexp.MustCompile(`^running, pid \d+, hosted true$`)),
					"0:10.0.0.2":   knownvalue.StringRegexp(regexp.MustCompile(`^running, pid \d+, hosted true$`)),
				})),
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

// terraformBlocks are the ```terraform blocks of a rendered docs page.
var terraformBlocks = regexp.MustCompile("(?s)```terraform\n(.*?)```")

// TestAccDocsBlocksAlone: every terraform block of the rendered docs
// validates as a user copies it alone into an empty directory (beside the
// provider block when it has none): a block naming a resource or data source
// it does not declare fails. Blocks of newer Terraform features run on a
// CLI that has them (exampleCLI).
func TestAccDocsBlocksAlone(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("../../docs/*/*.md")
	if err != nil || len(pages) < 10 {
		t.Fatalf("docs: %v %v", pages, err)
	}
	for _, page := range append(pages, "../../docs/index.md") {
		name := strings.TrimPrefix(page, "../../docs/")
		for i, m := range terraformBlocks.FindAllStringSubmatch(readRepoFile(t, strings.TrimPrefix(page, "../../")), -1) {
			t.Run(fmt.Sprintf("%s#%d", name, i+1), func(t *testing.T) {
				t.Parallel()
				docBlockAlone(t, name, m[1])
			})
		}
	}
}

// docBlockAlone validates block of docs page name alone: a list resource's
// as a query file, as its example is, any other as main.tf.
func docBlockAlone(t *testing.T, name, block string) {
	e := acctest.NewEnv(t)
	cli := acctest.NewCLIRunFrom(t, e, docBlockCLI(name, block), "")
	file, text, args := "main.tf", block, []string{"validate", "-no-color"}
	switch {
	case strings.HasPrefix(name, "list-resources/"):
		file, args = "docs.tfquery.hcl", append(args, "-query")
	case !strings.Contains(text, "required_providers"):
		text = acctest.RequiredProviders + text
	}
	if file == "main.tf" && !ownsProvider.MatchString(text) {
		text += e.ProviderBlock()
	}
	cli.WriteFile(file, text)
	if out, err := cli.Run(args...); err != nil {
		t.Fatalf("docs/%s: a block does not validate alone:\n%s\n%s", name, block, out)
	}
}

// docBlockCLI is the oldest CLI a docs block runs on (exampleCLI by what it holds).
func docBlockCLI(page, block string) string {
	switch {
	case strings.HasPrefix(page, "actions/"), strings.Contains(block, "\naction \""), strings.HasPrefix(block, "action \""):
		return exampleCLI("/actions/")
	case strings.HasPrefix(page, "list-resources/"):
		return exampleCLI(".tfquery.hcl")
	case strings.Contains(block, "identity = {"):
		return exampleCLI("import-by-identity.tf")
	}
	return exampleCLI("")
}
