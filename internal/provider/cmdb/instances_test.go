package cmdb_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// gsekitTemplate is a config template as GSEKit's users write it: names of
// the instance, arithmetic on them, and this.cc_* attributes.
const gsekitTemplate = `# ${Scope}
server ${FuncID}_${LocalInstID} (${FuncName}/${ProcName}/${bk_process_name}, process ${bk_process_id}, ${LocalInstID0} from 0)
set ${bk_set_name} ${SetName} env ${bk_set_env} ${SetEnviType} ${this.cc_set.attrib["bk_set_name"]}
module ${bk_module_name} ${ModuleName} ${this.cc_module.attrib["ModuleName"]}
host ${bk_host_innerip} ${InnerIP} cloud ${bk_cloud_id} ${this.cc_host.attrib["InnerIP"]}
listen ${LocalInstID + 8079};
pid ${PidFile} in ${WorkPath}
`

// TestAccCMDBProcesses_instances: every instance in groups, and no skipped
// one, is an element of instances keyed as host_status keys its host; its
// context renders a GSEKit template with templatefile as GSEKit renders it,
// for each of the two instances of nginx (proc_num 2) on a host with two
// IPv4 addresses; bind_info is CMDB's, its ip the host's first address.
// Without with_instances, instances is null.
func TestAccCMDBProcesses_instances(t *testing.T) {
	inCMDBModes(t, 20, func(t *testing.T, e *acctest.Env) {
		tpl := filepath.Join(t.TempDir(), "nginx.conf.tpl")
		if err := os.WriteFile(tpl, []byte(gsekitTemplate), 0o600); err != nil {
			t.Fatal(err)
		}
		host := "0:10.0.0.10"
		if h := e.Sim.CMDB().Hosts()[9]; e.Gateway && h.AgentID != "" {
			host = h.AgentID
		}
		key := func(name string) string { return "GSEKIT_BIZ_2/" + name + "@" + host }
		rendered := func(n int) string {
			return fmt.Sprintf(`# set-101.mod-1001.10.0.0.10_mod-1001.nginx.100010
server nginx_%d (nginx/nginx/nginx, process 100010, %d from 0)
set set-101 set-101 env 3 3 set-101
module mod-1001 mod-1001 mod-1001
host 10.0.0.10,192.168.0.10 10.0.0.10,192.168.0.10 cloud 0 10.0.0.10,192.168.0.10
listen %d;
pid /data/nginx/run/nginx_${local_inst_id}.pid in /data/nginx
`, n, n-1, 8079+n)
		}
		ds := "data.gse_cmdb_processes.biz"
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{{
				Config: e.CMDBConfig(fmt.Sprintf(`
data "gse_cmdb_processes" "biz" {
  bk_biz_id      = 2
  with_instances = true
}

output "conf" {
  value = { for k, v in data.gse_cmdb_processes.biz.instances : k => templatefile(%q, v.context) if v.bk_host_id == 10 && v.context.FuncID == "nginx" }
}
`, tpl)),
				ConfigStateChecks: []statecheck.StateCheck{
					// 20 hosts: nginx_1, nginx_2 and agent_1 on each; legacy_1 is skipped.
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("instances"), knownvalue.MapSizeExact(60)),
					statecheck.ExpectKnownOutputValue("conf", knownvalue.MapExact(map[string]knownvalue.Check{
						key("nginx_1"): knownvalue.StringExact(rendered(1)),
						key("nginx_2"): knownvalue.StringExact(rendered(2)),
					})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("instances").AtMapKey(key("nginx_2")), knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"group": knownvalue.StringExact("GSEKIT_BIZ_2/nginx_2"), "name": knownvalue.StringExact("nginx_2"), "local_inst_id": knownvalue.Int64Exact(2),
						"priority": knownvalue.Int64Exact(10), "bk_host_id": knownvalue.Int64Exact(10), "bk_set_id": knownvalue.Int64Exact(101),
						"bk_module_id": knownvalue.Int64Exact(1001), "service_instance_id": knownvalue.Int64Exact(100100010),
						"bind_info": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
							"ip": knownvalue.StringExact("10.0.0.10"), "port": knownvalue.StringExact("8080-8081"), "protocol": knownvalue.StringExact("TCP"),
							"enable": knownvalue.Bool(true), "template_row_id": knownvalue.Int64Exact(1),
						})}),
					})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("instances").AtMapKey(key("agent_1")).AtMapKey("bind_info"), knownvalue.ListSizeExact(0)),
				},
			}, {
				// Not asked for: null, so that a for_each over it fails rather than plan nothing.
				Config:            e.CMDBConfig("data \"gse_cmdb_processes\" \"biz\" { bk_biz_id = 2 }\n"),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(ds, tfjsonpath.New("instances"), knownvalue.Null())},
			}},
		})
	})
}
