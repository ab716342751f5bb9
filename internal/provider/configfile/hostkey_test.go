package configfile_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// A host written ::ffff:10.0.0.1 has one host_status key in gse_config_file
// and gse_managed_process: its address as written. A state that holds it
// under its unmapped address, 0:10.0.0.1, plans no change and, when the
// resource changes otherwise, pushes nothing.
func TestAccConfigFile_mappedHostKey(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnvWith(t, acctest.Modes[0], func(o *simulator.Options) { o.CMDBHosts = 5 })
	const hosts, content, key, unmapped = `[{ ip = "::ffff:10.0.0.1", bk_cloud_id = 0 }]`, "worker_processes 2;\n", "0:::ffff:10.0.0.1", "0:10.0.0.1"
	cli := acctest.NewCLIRunFrom(t, e, "1.0.0", fileResources(hosts, content, ""))
	cli.Must("apply", "-auto-approve", "-no-color", "-input=false")
	var state map[string]any
	out := cli.Must("state", "pull")
	// The CLI's output may start with its warnings (about its own configuration file).
	if i := strings.Index(out, "\n{"); i < 0 || json.Unmarshal([]byte(out[i:]), &state) != nil {
		t.Fatalf("state pull: no state\n%s", out)
	}
	for _, addr := range []string{"gse_config_file.conf", "gse_managed_process.nginx"} {
		if got := slices.Sorted(maps.Keys(hostStatusIn(t, state, addr))); !slices.Equal(got, []string{key}) {
			t.Errorf("%s.host_status keys: %q, want [%q]", addr, got, key)
		}
	}

	// The state with gse_config_file's host keyed by its unmapped address.
	file := hostStatusIn(t, state, "gse_config_file.conf")
	file[unmapped] = file[key]
	delete(file, key)
	state["serial"] = as[float64](t, state["serial"]) + 1
	edited, _ := json.Marshal(state)
	path := filepath.Join(t.TempDir(), "edited.tfstate")
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	cli.Must("state", "push", path)

	pushes := e.Sim.Calls("jobv3/push_config_file")
	if out, code, _ := cli.Exit("plan", "-detailed-exitcode", "-no-color", "-input=false"); code != 0 {
		t.Fatalf("plan: exit code %d, want 0 (no changes)\n%s", code, out)
	}
	cli.WriteFile("main.tf", acctest.RequiredProviders+e.ProviderBlock()+fileResources(hosts, content, "rollout = { batch_size = 1 }"))
	cli.Must("apply", "-auto-approve", "-no-color", "-input=false")
	if n := e.Sim.Calls("jobv3/push_config_file") - pushes; n != 0 {
		t.Errorf("%d push jobs for a host that holds the file, want 0", n)
	}
}

// hostStatusIn is host_status of the resource at addr (type.name) in a
// state file, to read or change in place.
func hostStatusIn(t *testing.T, state map[string]any, addr string) map[string]any {
	t.Helper()
	typ, name, _ := strings.Cut(addr, ".")
	for _, r := range as[[]any](t, state["resources"]) {
		r := as[map[string]any](t, r)
		if r["type"] == typ && r["name"] == name {
			attrs := as[map[string]any](t, as[map[string]any](t, as[[]any](t, r["instances"])[0])["attributes"])
			return as[map[string]any](t, attrs["host_status"])
		}
	}
	t.Fatalf("no %s in the state", addr)
	return nil
}

// as is v as a T, failing the test when the state holds another type there.
func as[T any](t *testing.T, v any) T {
	t.Helper()
	x, ok := v.(T)
	if !ok {
		t.Fatalf("state: %v is a %T, not a %T", v, v, x)
	}
	return x
}
