package service_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// cmdbService is a gse_service of the simulator's business 2 (4 hosts):
// agent (priority 0) and nginx (priority 10, two instances a host on ports
// 8080-8081), one host a batch, with extra arguments.
func cmdbService(e *acctest.Env, extra string) string {
	return e.CMDBConfig(`
data "gse_cmdb_processes" "biz" {
  bk_biz_id      = 2
  process_names  = ["nginx", "agent"]
  with_instances = true
  namespace      = "hc"
}

resource "gse_service" "test" {
  bk_biz_id = 2
  processes = data.gse_cmdb_processes.biz.groups
  instances = data.gse_cmdb_processes.biz.instances
  rollout   = { batch_size = 1 }
  ` + extra + `
}
`)
}

// A port that does not listen on host 3 stops the release at its batch:
// nginx's two instances there fail the gate with the port named, those of
// the later batches stay pending, and the service is kept, untainted. With the port open the
// next apply finishes those four alone; then a health script failing on
// host 1 stops a restart at its first batch.
func TestAccService_healthGate(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts = 4 }, func(t *testing.T, e *acctest.Env) {
		gate := `health = { healthy_deadline = "5s", tcp = { ports = "bind_info" }, script = { content = "test -f /data/nginx/ok" } }`
		key := func(k string) tfjsonpath.Path { return tfjsonpath.New("instances").AtMapKey(k) }
		// Hosts 2 and 4 have agent ids, by which the gateway's instances
		// name them, and a rollout takes such hosts last: host 3's batch is
		// then the second of four, and both others wait.
		pending := int64(2)
		if e.Gateway {
			pending = 4
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{
				{
					PreConfig:          func() { e.Sim.JOBv3().SetPortClosed(3, 8081, true) },
					Config:             cmdbService(e, gate),
					ExpectNonEmptyPlan: true,
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("failed_count"), knownvalue.Int64Exact(2)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_count"), knownvalue.Int64Exact(pending)),
						statecheck.ExpectKnownValue(addr, key("hc/nginx_2@0:10.0.0.3").AtMapKey("message"), knownvalue.StringRegexp(regexp.MustCompile(`8081 not listening`))),
						statecheck.ExpectKnownValue(addr, key("hc/agent_1@0:10.0.0.3").AtMapKey("status"), knownvalue.StringExact("running")),
					},
				},
				{
					PreConfig: func() { e.Sim.JOBv3().SetPortClosed(3, 8081, false) },
					Config:    cmdbService(e, gate),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("failed_count"), knownvalue.Int64Exact(0)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_count"), knownvalue.Int64Exact(0)),
					},
				},
				{
					PreConfig:   func() { e.Sim.JOBv3().SetScriptFails([]int64{1}, "/data/nginx/ok", 3, "no such file") },
					Config:      cmdbService(e, gate+"\n  restart_triggers = { rev = \"2\" }"),
					ExpectError: regexp.MustCompile(`the health script exited 3`),
				},
			},
		})
	})
}

// health.running_for counts by GSE's clock (the report_time of each status),
// which the simulator runs an hour a second here: an hour's running_for
// passes in a create whose timeout is a minute, every instance running.
func TestAccService_runningForByGSEClock(t *testing.T) {
	t.Parallel()
	acctest.InModesWith(t, func(o *simulator.Options) { o.CMDBHosts, o.ClockRate = 2, 3600 }, func(t *testing.T, e *acctest.Env) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckSimEmpty,
			Steps: []resource.TestStep{{
				Config: cmdbService(e, `health = { running_for = "1h" }`+"\n  timeouts = { create = \"1m\" }"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("failed_count"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_count"), knownvalue.Int64Exact(0)),
				},
			}},
		})
	})
}
