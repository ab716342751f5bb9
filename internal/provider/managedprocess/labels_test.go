package managedprocess_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// GSEKit registers its processes with the labels bk_process_name and
// bk_process_id, the latter an integer (bk-process-config-manager
// apps/gsekit/pipeline_plugins/components/collections/gse.py,
// BulkGseOperateProcessService._execute). Adopted by a configuration that
// sets no labels, the process keeps them through the adoption's apply and a
// spec change, and each plan after an apply is empty, whether GSE drops the
// labels an update_proc_info leaves out or keeps them, on both paths. Set,
// labels replace the process's; labels = {} removes them on either server.
func TestAccManagedProcess_adoptionKeepsLabels(t *testing.T) {
	t.Parallel()
	for _, m := range acctest.Modes {
		for _, on := range []simulator.LabelsOnUpdate{simulator.LabelsReplaced, simulator.LabelsKept} {
			t.Run(m.Name+"/"+string(on), func(t *testing.T) {
				t.Parallel()
				e := acctest.NewEnvWith(t, m, func(o *simulator.Options) { o.UpdateLabels = on })
				registerAsGSEKit(t, e)
				gsekit := map[string]string{"bk_process_name": "proc-test", "bk_process_id": "42"}
				proc := acctest.Proc{Hosts: []string{"0:10.0.0.1"}, Extra: "running = true"}
				cfg := e.Config(proc)
				proc.SetupPath = "/data/gsetest2"
				edited := e.Config(proc)
				proc.Labels = "{}"
				cleared := e.Config(proc)
				proc.Labels = `{ team = "ops" }`
				set := e.Config(proc)
				planned := func(want map[string]string) resource.ConfigPlanChecks {
					return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.Addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(acctest.Addr, tfjsonpath.New("meta").AtMapKey("labels"), labelsValue(want)),
					}}
				}
				step := func(config string, want map[string]string) resource.TestStep {
					return resource.TestStep{Config: config, ConfigPlanChecks: planned(want), Check: e.SimCheck(0, "10.0.0.1", acctest.HasLabels(want))}
				}
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: e.Factories(),
					CheckDestroy:             e.CheckSimEmpty,
					Steps: []resource.TestStep{
						{Config: cfg, ResourceName: acctest.Addr, ImportState: true, ImportStateId: "gse/proc-test@0:10.0.0.1", ImportStatePersist: true},
						step(cfg, gsekit),    // the adoption: the spec is sent again, with GSEKit's labels
						step(edited, gsekit), // a spec change
						step(cleared, nil),
						step(set, map[string]string{"team": "ops"}),
					},
				})
			})
		}
	}
}

// registerAsGSEKit registers gse/proc-test on 0:10.0.0.1 and starts it with
// GSEKit's labels as GSEKit sends them, bk_process_id an integer: through the
// gateway with GSEKit's operate_proc_multi item, through ESB (where an
// operation does not create a process) with register_proc_info first.
func registerAsGSEKit(t *testing.T, e *acctest.Env) {
	t.Helper()
	meta := `{"namespace": "gse", "name": "proc-test", "labels": {"bk_process_name": "proc-test", "bk_process_id": 42}}`
	spec := func(policy string) string {
		return `{"identity": {"index_key": "", "proc_name": "proc-test", "setup_path": "/opt/proc-test", "pid_path": "/opt/proc-test/p.pid", "user": "root"},
			"control": {"start_cmd": "./start.sh", "stop_cmd": "./stop.sh", "restart_cmd": "", "reload_cmd": "", "kill_cmd": ""},
			"` + policy + `": {"auto_type": 1, "start_check_secs": 5, "op_timeout": 60}}`
	}
	if e.Gateway {
		post(t, e, "/api/v2/proc/operate_proc_multi", `{"proc_operate_req": [{"meta": `+meta+`, "op_type": 0, "agent_id_list": ["0:10.0.0.1"], "spec": `+spec("alive_monitor_policy")+`}]}`)
		return
	}
	creds := fmt.Sprintf(`"bk_app_code": %q, "bk_app_secret": %q, "bk_username": "admin"`, acctest.AppCode, acctest.AppSecret)
	host := `[{"ip": "10.0.0.1", "bk_cloud_id": 0, "bk_supplier_id": 0}]`
	// register_proc_info requires spec.resource, which GSEKit's operation leaves out.
	registered := strings.Replace(spec("monitor_policy"), `"control"`, `"resource": {"cpu": 0, "mem": 0}, "control"`, 1)
	post(t, e, "/api/c/compapi/v2/gse/register_proc_info/", `{`+creds+`, "meta": `+meta+`, "hosts": `+host+`, "spec": `+registered+`}`)
	post(t, e, "/api/c/compapi/v2/gse/operate_proc_v2/", `{`+creds+`, "meta": `+meta+`, "hosts": `+host+`, "op_type": 0, "spec": `+spec("alive_monitor_policy")+`}`)
}

// post sends body to the simulator at path (with the gateway's credentials
// in gateway mode) and fails the test unless it answers code 0.
func post(t *testing.T, e *acctest.Env, path, body string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if e.Gateway {
		req.Header.Set("X-Bkapi-Authorization", fmt.Sprintf(`{"bk_app_code": %q, "bk_app_secret": %q, "bk_username": "admin"}`, acctest.AppCode, acctest.AppSecret))
		req.Header.Set("X-Bk-Tenant-Id", acctest.Tenant)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reply struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil || reply.Code != 0 {
		t.Fatalf("%s: %v, code %d: %s", path, err, reply.Code, reply.Message)
	}
}

// labelsValue checks meta.labels: want, or empty for none.
func labelsValue(want map[string]string) knownvalue.Check {
	checks := map[string]knownvalue.Check{}
	for k, v := range want {
		checks[k] = knownvalue.StringExact(v)
	}
	return knownvalue.MapExact(checks)
}
