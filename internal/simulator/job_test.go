package simulator_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// jobBody is a JOB request for nginx on 10.0.0.1 in business 2; fields go
// into the process_infos item.
func jobBody(op int, fields string) string {
	item := `"setup_path":"/data/nginx/bin","proc_name":"nginx","ip_list":[{"bk_cloud_id":0,"ip":"10.0.0.1"}]`
	if fields != "" {
		item += "," + fields
	}
	b, _ := json.Marshal(op)
	return `{"bk_biz_id":2,"op_type":` + string(b) + `,"process_infos":[{` + item + `}]}`
}

// The JOB server as bk-job's code before commit 2a899882a answers it.
func TestJobAsTheOpenSourceServer(t *testing.T) {
	sim := simulator.New(simulator.Options{})
	srv := httptest.NewServer(sim)
	defer srv.Close()
	job := func(api, body string) int {
		t.Helper()
		st, code := post(t, srv, "/api/c/compapi/v2/job/"+api+"/", "app", body)
		if st != http.StatusOK {
			t.Fatalf("%s: HTTP %d", api, st)
		}
		return code
	}
	nginx := func() simulator.Process {
		p, ok := sim.JOB().Process("biz:2", "/data/nginx/bin/nginx", 0, "10.0.0.1")
		if !ok {
			t.Fatal("nginx is unknown to the agent")
		}
		return p
	}
	pid := `"pid_path":"/data/nginx/run/nginx.pid"`

	// checkRequest: setup_path, proc_name and pid_path on every process, an op_type of the API.
	for api, body := range map[string]string{
		"operate_process":        jobBody(3, ""),
		"manage_proc":            jobBody(1, ""),
		"manage_proc op_type 3":  jobBody(3, pid),
		"operate_process op 5":   jobBody(5, pid),
		"operate_proc no ip":     strings.Replace(jobBody(0, pid), `{"bk_cloud_id":0,"ip":"10.0.0.1"}`, "", 1),
		"operate_process no biz": strings.Replace(jobBody(3, pid), `"bk_biz_id":2,`, "", 1),
	} {
		if code := job(strings.Fields(api)[0], body); code != 1241002 {
			t.Errorf("%s: code %d, want ILLEGAL_PARAM 1241002", api, code)
		}
	}

	// operate_process 3 registers hosting (a resident process is pulled up); absent numbers are 0, account root.
	if code := job("operate_process", jobBody(3, pid+`,"type":1,"start_check_begin_time":5,"start_check_end_time":9`)); code != 0 {
		t.Fatalf("operate_process 3: code %d", code)
	}
	p := nginx()
	var def simulator.JobDefinition
	_ = json.Unmarshal(p.Spec, &def)
	if !p.Hosted || !p.Running || def.Account != "root" || def.Type != 1 || def.CPULmt != 0 || def.StartCheckEndTime != 5 {
		t.Errorf("after operate_process 3: %+v, definition %+v", p, def)
	}

	// manage_proc's 1 reaches GSE unchanged: it stops the process (and unhosts it); 2 only queries.
	if code := job("manage_proc", jobBody(2, pid+`,"proc_owner":"ops"`)); code != 0 || !nginx().Running || !nginx().Hosted {
		t.Errorf("manage_proc 2: code %d, process %+v: a query changes nothing", code, nginx())
	}
	if code := job("manage_proc", jobBody(1, pid)); code != 0 || nginx().Running || nginx().Hosted {
		t.Errorf("manage_proc 1: code %d, process %+v: want stopped", code, nginx())
	}

	// operate_process 4 unregisters hosting; the process stays known to the agent.
	_ = job("operate_process", jobBody(3, pid+`,"type":1`))
	if code := job("operate_process", jobBody(4, pid)); code != 0 || nginx().Hosted || !nginx().Running {
		t.Errorf("operate_process 4: code %d, process %+v: want running, unhosted", code, nginx())
	}

	// A JOB 3.7+: every one of the four answers 1306201.
	sim.JOB().SetProcessAPIsRemoved(true)
	for _, api := range []string{"manage_proc", "operate_proc", "operate_process", "get_proc_result"} {
		if code := job(api, jobBody(2, pid)); code != 1306201 {
			t.Errorf("JOB 3.7+ %s: code %d, want 1306201", api, code)
		}
	}
}

// operate_proc ignores the commands sent: JOB's own scripts, per extension.
func TestJobOperateProcScripts(t *testing.T) {
	sim := simulator.New(simulator.Options{})
	srv := httptest.NewServer(sim)
	defer srv.Close()
	body := strings.Replace(jobBody(0, `"pid_path":"C:\\app\\app.pid","cmd_shell_ext":"bat","start_cmd":"mine","cpu_lmt":-1,"mem_lmt":200`),
		`"setup_path":"/data/nginx/bin"`, `"setup_path":"C:\\app"`, 1)
	if _, code := post(t, srv, "/api/c/compapi/v2/job/operate_proc/", "app", body); code != 0 {
		t.Fatalf("operate_proc: code %d", code)
	}
	p, ok := sim.JOB().Process("biz:2", `C:\app\nginx`, 0, "10.0.0.1") // value_key: the full path
	var def simulator.JobDefinition
	if !ok || json.Unmarshal(p.Spec, &def) != nil {
		t.Fatalf("process %+v %v", p, ok)
	}
	if def.StartCmd != `cd C:\app && start.bat nginx ` || def.KillCmd != "" || def.Type != 1 || def.CPULmt != 50 || def.MemLmt != 30 || def.InstanceNum != 1 {
		t.Errorf("definition %+v", def)
	}
}
