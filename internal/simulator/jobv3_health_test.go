package simulator_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// healthSim is a simulator of hosts CMDB hosts (nginx listening on
// 8080-8081 when running) and its server.
func healthSim(t *testing.T, hosts int) (*simulator.Server, *httptest.Server) {
	t.Helper()
	sim := simulator.New(simulator.Options{CMDBHosts: hosts, InstantTasks: true})
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	return sim, srv
}

// startProc registers the GSE process ns/name on ip through ESB and starts it.
func startProc(t *testing.T, srv *httptest.Server, ns, name, ip string) {
	t.Helper()
	identity := `"identity":{"proc_name":"` + name + `","setup_path":"/data","pid_path":"/data/p.pid","user":"root"}`
	meta := `"meta":{"namespace":"` + ns + `","name":"` + name + `"},"hosts":[{"ip":"` + ip + `","bk_cloud_id":0,"bk_supplier_id":0}]`
	for _, call := range [][2]string{
		{"register_proc_info", `{` + meta + `,"spec":{` + identity + `,"monitor_policy":{"auto_type":1},"resource":{"cpu":1,"mem":1}}}`},
		{"operate_proc_v2", `{` + meta + `,"op_type":0,"spec":{` + identity + `,"alive_monitor_policy":{"auto_type":1}}}`},
	} {
		if st, code := post(t, srv, "/api/c/compapi/v2/gse/"+call[0]+"/", "app", call[1]); st != http.StatusOK || code != 0 {
			t.Fatalf("%s: HTTP %d code %d", call[0], st, code)
		}
	}
}

// runScript runs the shell script through fast_execute_script on host id
// and returns its exit code and output.
func runScript(t *testing.T, srv *httptest.Server, id int64, script string) (int, string) {
	t.Helper()
	var started struct {
		Data struct {
			Job  int64 `json:"job_instance_id"`
			Step int64 `json:"step_instance_id"`
		}
	}
	jobv3(t, srv, "fast_execute_script", fmt.Sprintf(`{"bk_scope_type":"biz","bk_scope_id":"2","account_alias":"root","script_language":1,`+
		`"script_content":%q,"target_server":{"host_id_list":[%d]}}`, base64.StdEncoding.EncodeToString([]byte(script)), id), &started)
	var status struct {
		Data struct {
			Steps []struct {
				Hosts []struct {
					Exit int `json:"exit_code"`
				} `json:"step_ip_result_list"`
			} `json:"step_instance_list"`
		}
	}
	for range 2 {
		jobv3(t, srv, "get_job_instance_status", fmt.Sprintf(`{"bk_scope_type":"biz","bk_scope_id":"2","job_instance_id":%d,"return_ip_result":true}`, started.Data.Job), &status)
	}
	var logs struct {
		Data struct {
			Logs []struct {
				Content string `json:"log_content"`
			} `json:"script_task_logs"`
		}
	}
	jobv3(t, srv, "batch_get_job_instance_ip_log", fmt.Sprintf(`{"bk_scope_type":"biz","bk_scope_id":"2","job_instance_id":%d,"step_instance_id":%d,"host_id_list":[%d]}`,
		started.Data.Job, started.Data.Step, id), &logs)
	return status.Data.Steps[0].Hosts[0].Exit, logs.Data.Logs[0].Content
}

// jobv3 posts body to a JOB v3 API through ESB and decodes the reply into out.
func jobv3(t *testing.T, srv *httptest.Server, api, body string, out any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/c/compapi/v2/jobv3/"+api+"/", strings.NewReader(body))
	req.Header.Set("X-Bkapi-Authorization", `{"bk_app_code":"app","bk_app_secret":"s","bk_username":"admin"}`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("%s: %v", api, err)
	}
}

const probe = "# gse_service tcp probe\nports='8080 8081'\n"

// A host listens on the bind_info ports of the CMDB processes whose GSE
// instance ({bk_process_name}_{local_inst_id}, any namespace) runs there,
// each port of a range, less the ports SetPortClosed closes; the probe
// prints the ports that do not listen and exits 1.
func TestHostListensOnRunningInstancesPorts(t *testing.T) {
	sim, srv := healthSim(t, 3)
	h1, h2 := sim.CMDB().Hosts()[0], sim.CMDB().Hosts()[1]
	if got := sim.JOBv3().Listening(h1.ID); len(got) != 0 {
		t.Errorf("nothing runs on host 1, yet it listens on %v", got)
	}
	startProc(t, srv, "ns-a", "nginx_2", h1.InnerIP)
	startProc(t, srv, "ns-b", "nginx_3", h2.InnerIP) // proc_num is 2: no instance of nginx
	startProc(t, srv, "ns-b", "nginx", h2.InnerIP)
	if got := sim.JOBv3().Listening(h1.ID); !slices.Equal(got, []int{8080, 8081}) {
		t.Errorf("host 1 with nginx_2 running listens on %v, want [8080 8081]", got)
	}
	if got := sim.JOBv3().Listening(h2.ID); len(got) != 0 {
		t.Errorf("host 2 runs no instance of nginx, yet listens on %v", got)
	}
	if code, out := runScript(t, srv, h1.ID, probe); code != 0 || out != "listening: 8080 8081\n" {
		t.Errorf("probe on host 1: exit %d, output %q", code, out)
	}
	if code, out := runScript(t, srv, h2.ID, probe); code != 1 || out != "not listening: 8080 8081\n" {
		t.Errorf("probe on host 2: exit %d, output %q", code, out)
	}

	// A port closed although nginx runs; HTTP control opens it again.
	sim.JOBv3().SetPortClosed(h1.ID, 8081, true)
	if code, out := runScript(t, srv, h1.ID, probe); code != 1 || out != "not listening: 8081\n" {
		t.Errorf("probe on host 1 with 8081 closed: exit %d, output %q", code, out)
	}
	admin(t, srv, "/_sim/job/port", `{"bk_host_id":1,"port":8081,"closed":false}`)
	if got := sim.JOBv3().Listening(h1.ID); !slices.Equal(got, []int{8080, 8081}) {
		t.Errorf("host 1 after 8081 opened listens on %v", got)
	}

	// Stopped out of band, it listens on nothing.
	if err := sim.GSE().Drift(simulator.DriftStop, "ns-a", "nginx_2", 0, h1.InnerIP); err != nil {
		t.Fatal(err)
	}
	if code, out := runScript(t, srv, h1.ID, probe); code != 1 || out != "not listening: 8080 8081\n" {
		t.Errorf("probe on host 1 with nginx stopped: exit %d, output %q", code, out)
	}
}

// A TCP row's port list and ranges listen on each port; a disabled row, a
// UDP row, and a process without rows listen on none.
func TestHostListensOnEveryPortOfARow(t *testing.T) {
	sim, srv := healthSim(t, 1)
	rows := []any{
		map[string]any{"row_id": 1, "ip": "2", "port": "9000-9002,9100", "protocol": "1", "enable": true},
		map[string]any{"row_id": 2, "ip": "6", "port": "9200", "protocol": "3", "enable": true},
		map[string]any{"row_id": 3, "ip": "2", "port": "9300", "protocol": "2", "enable": true},
		map[string]any{"row_id": 4, "ip": "2", "port": "9400", "protocol": "1", "enable": false},
	}
	if err := sim.CMDB().EditProcessTemplate(2, map[string]any{"bind_info": rows}); err != nil {
		t.Fatal(err)
	}
	h := sim.CMDB().Hosts()[0]
	startProc(t, srv, "ns", "agent_1", h.InnerIP)
	if got, want := sim.JOBv3().Listening(h.ID), []int{9000, 9001, 9002, 9100, 9200}; !slices.Equal(got, want) {
		t.Errorf("listening on %v, want %v", got, want)
	}
	var got []int
	resp, err := http.Get(srv.URL + "/_sim/job/listening/1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || len(got) != 5 {
		t.Errorf("GET /_sim/job/listening/1: %v %v", got, err)
	}
}

// SetScriptFails fails a script holding its text on the hosts named (every
// host for none), until exit code 0 removes it; other scripts print nothing
// and exit 0; a shell script on a Windows host fails as JOB reports it.
func TestScriptFails(t *testing.T) {
	sim, srv := healthSim(t, 7)
	const script = "#!/bin/sh\n/data/check_health --deep\n"
	if code, out := runScript(t, srv, 1, script); code != 0 || out != "" {
		t.Errorf("health script with no rule: exit %d, output %q", code, out)
	}
	sim.JOBv3().SetScriptFails([]int64{2}, "check_health", 3, "degraded\n")
	for id, want := range map[int64]int{1: 0, 2: 3} {
		if code, _ := runScript(t, srv, id, script); code != want {
			t.Errorf("host %d: exit %d, want %d", id, code, want)
		}
	}
	if _, out := runScript(t, srv, 2, script); out != "degraded\n" {
		t.Errorf("host 2 printed %q", out)
	}
	admin(t, srv, "/_sim/job/script_fails", `{"bk_host_ids":null,"contains":"check_health","exit_code":4,"output":"down"}`)
	if code, out := runScript(t, srv, 1, script); code != 4 || out != "down" {
		t.Errorf("host 1 under a rule for every host: exit %d, output %q", code, out)
	}
	if code, _ := runScript(t, srv, 1, "#!/bin/sh\ntrue\n"); code != 0 {
		t.Errorf("a script without the text: exit %d", code)
	}
	if code, out := runScript(t, srv, 7, script); code != 127 || !strings.Contains(out, "no Cygwin") {
		t.Errorf("shell on Windows host 7: exit %d, output %q", code, out)
	}
	sim.JOBv3().SetScriptFails(nil, "check_health", 0, "")
	if code, _ := runScript(t, srv, 2, script); code != 0 {
		t.Errorf("host 2 after the rule's removal: exit %d", code)
	}
}

// admin posts body to an admin route, which answers 204.
func admin(t *testing.T, srv *httptest.Server, path, body string) {
	t.Helper()
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST %s: HTTP %d", path, resp.StatusCode)
	}
}

// SetScriptFailsOnContent fails a script holding its text on the hosts that
// hold a file with the content named, and only there: restored, the file
// passes again.
func TestScriptFailsOnContent(t *testing.T) {
	sim, srv := healthSim(t, 3)
	const script = "#!/bin/sh\nnginx -t -p /data/nginx\n"
	sim.JOBv3().SetFile(1, "/data/nginx/conf/nginx.conf", []byte("# rev bad\n"))
	sim.JOBv3().SetFile(2, "/data/nginx/conf/nginx.conf", []byte("# rev 1\n"))
	admin(t, srv, "/_sim/job/script_fails", `{"contains":"nginx -t","file_contains":"rev bad","exit_code":1,"output":"nginx: [emerg]\n"}`)
	for id, want := range map[int64]int{1: 1, 2: 0, 3: 0} {
		if code, _ := runScript(t, srv, id, script); code != want {
			t.Errorf("host %d: exit %d, want %d", id, code, want)
		}
	}
	sim.JOBv3().SetFile(1, "/data/nginx/conf/nginx.conf", []byte("# rev 1\n"))
	if code, out := runScript(t, srv, 1, script); code != 0 {
		t.Errorf("host 1 with its file restored: exit %d, output %q", code, out)
	}
	resp, err := http.Post(srv.URL+"/_sim/job/script_fails", "application/json",
		strings.NewReader(`{"bk_host_ids":[1],"contains":"nginx -t","file_contains":"rev bad","exit_code":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusNoContent {
		t.Error("a rule with both bk_host_ids and file_contains was taken")
	}
}
