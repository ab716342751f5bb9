package service_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// nginxFiles gives each nginx instance its own file, rendered from the
// instance, with rev in it.
func nginxFiles(rev string) string {
	return fmt.Sprintf(`config_files = {
    for k, i in data.gse_cmdb_processes.biz.instances : k => {
      instance  = k
      path      = "/data/nginx/conf"
      file_name = "${i.name}.conf"
      content   = "listen ${8079 + i.local_inst_id};\n# rev %s\n"
    } if startswith(i.name, "nginx_")
  }`, rev)
}

// A per-instance file: created with the service; a new revision shows as a
// diff of each file's content in the plan, reloads nginx alone (the agent is
// untouched), pushes each host's two files in that host's batch right before
// its reload (one job per host carrying both, never to another host), and
// leaves each instance's own content on its host.
func TestAccService_configFiles(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts, o.RecordRequests = 4, true }, func(t *testing.T, e *acctest.Env) {
		cfg := func(rev string) string { return cmdbService(e, nginxFiles(rev)) }
		var mark, pushes, updates, requests int
		key3 := "hc/nginx_2@0:10.0.0.3"
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: cfg("1"), Check: fileOn(e.Sim, 3, "/data/nginx/conf/nginx_2.conf", "listen 8081;\n# rev 1\n")},
				{
					PreConfig: func() {
						acctest.MarkTasks(e.Sim, &mark)()
						pushes, updates, requests = e.Sim.Calls("jobv3/push_config_file"), e.Sim.Calls("update_proc_info"), len(e.Sim.Requests())
					},
					Config: cfg("2"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("config_files").AtMapKey(key3).AtMapKey("content"), knownvalue.StringExact("listen 8081;\n# rev 2\n")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("instances").AtMapKey(key3).AtMapKey("action"), knownvalue.StringExact("reload")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("instances").AtMapKey("hc/agent_1@0:10.0.0.3").AtMapKey("action"), knownvalue.Null()),
					}},
					Check: resource.ComposeAggregateTestCheckFunc(
						fileOn(e.Sim, 3, "/data/nginx/conf/nginx_2.conf", "listen 8081;\n# rev 2\n"),
						fileOn(e.Sim, 1, "/data/nginx/conf/nginx_1.conf", "listen 8080;\n# rev 2\n"),
						expectTaskOrder(e.Sim, &mark, int(gse.OpReload), []string{"hc/nginx_1", "hc/nginx_2"}, []string{"hc/nginx_1", "hc/nginx_2"},
							[]string{"hc/nginx_1", "hc/nginx_2"}, []string{"hc/nginx_1", "hc/nginx_2"}),
						pushedBeforeEachBatch(e.Sim, &requests, 4),
						func(*terraform.State) error {
							if n := e.Sim.Calls("jobv3/push_config_file") - pushes; n != 4 {
								return fmt.Errorf("push_config_file called %d times, want 4: one per host, with its two files", n)
							}
							if n := e.Sim.Calls("update_proc_info") - updates; n != 0 {
								return fmt.Errorf("update_proc_info called %d times, want 0: the reload leaves the spec GSE holds", n)
							}
							return nil
						},
					),
				},
				{Config: cfg("2"), PlanOnly: true},
			},
		})
	})
}

// fileOn checks the content of a file the simulator's JOB wrote on a host.
func fileOn(sim *simulator.Server, hostID int64, full, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, ok := sim.JOBv3().File(hostID, full)
		if !ok || string(got) != want {
			return fmt.Errorf("host %d: %s is %q (present %t), want %q", hostID, full, got, ok, want)
		}
		return nil
	}
}

// pushedBeforeEachBatch checks, in the requests since *since, that pushes
// and operations alternate batch by batch: each batch's pushes, then its
// operation, batches times.
func pushedBeforeEachBatch(sim *simulator.Server, since *int, batches int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var seq []byte
		for _, r := range sim.Requests()[*since:] {
			ev := byte(0)
			switch {
			case strings.Contains(r.Path, "push_config_file"):
				ev = 'p'
			case strings.Contains(r.Path, "operate_proc") && !strings.Contains(r.Path, "result"):
				ev = 'o'
			}
			if ev != 0 && (len(seq) == 0 || seq[len(seq)-1] != ev) {
				seq = append(seq, ev)
			}
		}
		if want := strings.Repeat("po", batches); string(seq) != want {
			return fmt.Errorf("pushes (p) and operations (o) ran as %q, want %q: each batch's files right before its operation", seq, want)
		}
		return nil
	}
}

// config_files is checked at plan as its schema says, each element at its
// path: a file for both an instance and a group, a relative path, and
// content_wo without its version are refused before anything is sent.
func TestAccService_configFilesChecked(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts = 2 }, func(t *testing.T, e *acctest.Env) {
		file := func(f string) string { return cmdbService(e, "config_files = { bad = "+f+" }") }
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{Config: file(`{ instance = "hc/nginx_1@0:10.0.0.1", group = "hc/nginx_1", path = "/data", file_name = "a", content = "x" }`), PlanOnly: true,
					ExpectError: regexp.MustCompile(`config_files\["bad"\]: exactly one of instance and group`)},
				{Config: file(`{ group = "hc/nginx_1", path = "data", file_name = "a", content = "x" }`), PlanOnly: true,
					ExpectError: regexp.MustCompile(`(?s)config_files\["bad"\].path`)},
				{Config: file(`{ group = "hc/nginx_1", path = "/data", file_name = "a", content_wo = "x" }`), PlanOnly: true,
					ExpectError: regexp.MustCompile(`config_files\["bad"\]: content_wo needs content_wo_version`)},
			},
		})
		if n := e.Sim.Calls("jobv3/push_config_file"); n != 0 {
			t.Fatalf("push_config_file called %d times by configurations refused at plan", n)
		}
	})
}
