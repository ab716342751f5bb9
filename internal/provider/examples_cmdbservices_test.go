package provider_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// examples/cmdb-services releases in CMDB's and GSEKit's order, ascending
// priority to start (bk-cmdb src/scene_server/admin_server/upgrader/y3.9.202011171550/change_process_attr.go,
// the priority field's hint; bk-process-config-manager
// apps/gsekit/adapters/base/pipeline_managers/process.py get_op_type_order):
// the plan's schedule puts the simulator business's agent (priority 0) in
// a tier before nginx (priority 10). Applied, each nginx instance has its
// own file from nginx.conf.tpl on its host, and the postcondition holds.
// As a nightly job runs it, `plan -detailed-exitcode` then exits 0, and 2
// once an instance is stopped out of band, naming it; the apply repairs it.
func TestAccExampleCMDBServicesStartsInAscendingPriority(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnvWith(t, acctest.Modes[0], func(o *simulator.Options) { o.CMDBHosts = 4 })
	cli := acctest.NewCLIRunFrom(t, e, "1.5.0", "")
	main := acctest.Edited(t, readRepoFile(t, "examples/cmdb-services/main.tf"), `provider "gse" {}`, "provider \"gse\" {\n"+e.ProviderArgs()+"}")
	// The gate's 10 s would wait 10 s a batch; what it proves is the health tests'.
	cli.WriteFile("main.tf", acctest.Edited(t, main, `running_for = "10s"`, `running_for = "0s"`))
	cli.WriteFile("nginx.conf.tpl", readRepoFile(t, "examples/cmdb-services/nginx.conf.tpl"))
	cli.Must("plan", "-out=tfplan", "-no-color", "-input=false")
	var plan struct {
		ResourceChanges []serviceChange `json:"resource_changes"`
	}
	out := cli.Must("show", "-json", "tfplan")
	// The output is combined: the CLI's warnings on stderr come before the document.
	if err := json.Unmarshal([]byte(out[max(0, strings.Index(out, `{"format_version"`)):]), &plan); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	i := slices.IndexFunc(plan.ResourceChanges, func(rc serviceChange) bool { return rc.Address == "gse_service.biz" })
	if i < 0 {
		t.Fatalf("no gse_service.biz in the plan:\n%s", out)
	}
	var tiers []string
	for _, tier := range plan.ResourceChanges[i].Change.After.Schedule {
		names := map[string]bool{}
		for _, b := range tier.Batches {
			for _, k := range b {
				name, _, _ := strings.Cut(strings.TrimPrefix(k, "GSEKIT_BIZ_2/"), "_")
				names[name] = true
			}
		}
		tiers = append(tiers, fmt.Sprintf("%v:%s", tier.Priority, strings.Join(slices.Sorted(maps.Keys(names)), ",")))
	}
	if !slices.Equal(tiers, []string{"0:agent", "10:nginx"}) {
		t.Errorf("schedule's tiers %v: want agent (priority 0) first and nginx (priority 10) after it", tiers)
	}
	cli.Must("apply", "-no-color", "-input=false", "tfplan")
	for host := int64(1); host <= 4; host++ {
		for n := 1; n <= 2; n++ {
			name := fmt.Sprintf("/data/nginx/conf/nginx_%d.conf", n)
			got, ok := e.Sim.JOBv3().File(host, name)
			want := []string{fmt.Sprintf("listen %d;", 8079+n), fmt.Sprintf(`"10.0.0.%d#%d"`, host, n)}
			if !ok || !strings.Contains(string(got), want[0]) || !strings.Contains(string(got), want[1]) {
				t.Errorf("host %d: %s is %q (present %t), want it rendered for its instance: %q", host, name, got, ok, want)
			}
		}
	}
	nightly := func(want int) string {
		out, code, _ := cli.Exit("plan", "-detailed-exitcode", "-no-color", "-input=false")
		if code != want {
			t.Fatalf("plan -detailed-exitcode exited %d, want %d:\n%s", code, want, out)
		}
		return out
	}
	nightly(0)
	if err := e.Sim.GSE().Drift(simulator.DriftStop, "GSEKIT_BIZ_2", "nginx_2", 0, "10.0.0.3"); err != nil {
		t.Fatal(err)
	}
	if out := nightly(2); !strings.Contains(out, "GSEKIT_BIZ_2/nginx_2@0:10.0.0.3: found stopped, planned to start") {
		t.Errorf("the plan does not name the drifted instance:\n%s", out)
	}
	cli.Must("apply", "-auto-approve", "-no-color", "-input=false")
	nightly(0)
	cli.Must("destroy", "-auto-approve", "-no-color", "-input=false")
	if err := e.CheckSimEmpty(nil); err != nil {
		t.Error(err)
	}
}

// serviceChange is what a plan's resource change says of a gse_service's schedule.
type serviceChange struct {
	Address string `json:"address"`
	Change  struct {
		After struct {
			Schedule []struct {
				Priority any        `json:"priority"`
				Batches  [][]string `json:"batches"`
			} `json:"schedule"`
		} `json:"after"`
	} `json:"change"`
}
