package gse_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// hashRead is a shell read of /a's SHA-256, as the simulator's hosts run it.
const hashRead = "f='/a'\nsha256sum < \"$f\"\n"

// retrying is a configuration that retries faults twice.
func retrying(cfg *gse.Config) { cfg.MaxRetries = 2 }

// JOB's 1240001 and 1240002 are transient: the reads (a job's status, a
// script's output) are sent again; fast_execute_script, which JOB may have
// saved as a job before failing, is not. Through ESB and the bk-job gateway.
func TestJobTransientCodes(t *testing.T) {
	t.Parallel()
	for _, gateway := range []bool{false, true} {
		for _, code := range []int{1240001, 1240002} {
			c, sim := newJobV3(t, 4, gateway, retrying)
			ctx := ctxTimeout(t, 10*time.Second)
			scope := gse.BizScope(simulator.CMDBBizID)
			sc := gse.Script{Content: hashRead, Account: "root", TimeoutSecs: 60}
			sim.AddFault(simulator.Fault{API: "jobv3/fast_execute_script", Code: code})
			_, err := c.Job.ExecuteScript(ctx, scope, sc, gse.JobTargets{HostIDs: []int64{1, 2}})
			var ae *gse.APIError
			if !errors.As(err, &ae) || ae.Code != code || gse.KindOf(err) != gse.KindServer || sim.Calls("jobv3/fast_execute_script") != 1 {
				t.Fatalf("gateway %v, %d: fast_execute_script: %v after %d calls", gateway, code, err, sim.Calls("jobv3/fast_execute_script"))
			}
			run, err := c.Job.ExecuteScript(ctx, scope, sc, gse.JobTargets{HostIDs: []int64{1, 2}})
			if err != nil {
				t.Fatal(err)
			}
			sim.AddFault(simulator.Fault{API: "jobv3/get_job_instance_status", Code: code}, simulator.Fault{API: "jobv3/batch_get_job_instance_ip_log", Code: code})
			if _, err := c.Job.WaitScript(ctx, scope, run); err != nil {
				t.Fatalf("gateway %v, %d: get_job_instance_status: %v", gateway, code, err)
			}
			if logs, err := c.Job.ScriptLogs(ctx, scope, run, []int64{1, 2}); err != nil || logs[1] != "MISSING\n" {
				t.Fatalf("gateway %v, %d: batch_get_job_instance_ip_log: %v %v", gateway, code, logs, err)
			}
			if sim.FaultsLeft() != 0 {
				t.Errorf("gateway %v, %d: %d faults never fired", gateway, code, sim.FaultsLeft())
			}
		}
	}
}

// JOB's IAM refusal (9900403) names the actions the user lacks and their
// resources, as its permission field says.
func TestJobIAMRefusalNamesThePermission(t *testing.T) {
	t.Parallel()
	for _, gateway := range []bool{false, true} {
		c, sim := newJobV3(t, 4, gateway)
		sim.AddFault(simulator.Fault{API: "jobv3/fast_execute_script", Code: gse.CodeIAMNoPermission})
		_, err := c.Job.ExecuteScript(ctxTimeout(t, 5*time.Second), gse.BizScope(simulator.CMDBBizID), gse.Script{Content: hashRead, Account: "root", TimeoutSecs: 60},
			gse.JobTargets{HostIDs: []int64{1, 2}})
		var ae *gse.APIError
		if !errors.As(err, &ae) || ae.Permission == nil {
			t.Fatalf("gateway %v: %v", gateway, err)
		}
		for _, want := range []string{"fast_execute_script: code 9900403", "permission not allowed", "the user lacks the IAM permission of bk_job (Job) to use_account (Use Account) on Accounts root",
			"quick_execute_script (Script Execution (Quick Launch)) on Hosts 1, 2", "apply for the permission in BlueKing IAM"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("gateway %v: %q lacks %q", gateway, err, want)
			}
		}
	}
}

// A script on more hosts than the installation's JOB takes in one job
// (1244022 names its limit) runs as several jobs, read back as one: the
// results and output of every host.
func TestScriptSplitByJOBsLimit(t *testing.T) {
	t.Parallel()
	for _, gateway := range []bool{false, true} {
		c, sim := newJobV3(t, 11, gateway)
		sim.JOBv3().SetScriptTargetsMax(4)
		ctx := ctxTimeout(t, 10*time.Second)
		scope := gse.BizScope(simulator.CMDBBizID)
		ids := []int64{1, 2, 3, 4, 5, 6, 8, 9, 10, 11} // host 7 is a Windows host, which runs no shell
		for _, id := range ids {
			sim.JOBv3().SetFile(id, "/a", []byte(fmt.Sprint(id)))
		}
		run, err := c.Job.ExecuteScript(ctx, scope, gse.Script{Content: hashRead, Account: "root", TimeoutSecs: 60}, gse.JobTargets{HostIDs: ids})
		if err != nil {
			t.Fatalf("gateway %v: %v", gateway, err)
		}
		if n := sim.Calls("jobv3/fast_execute_script"); n != 4 { // refused, then 4 + 4 + 2
			t.Errorf("gateway %v: %d fast_execute_script calls", gateway, n)
		}
		st, err := c.Job.WaitScript(ctx, scope, run)
		if err != nil || !st.Finished || st.Job.Status != gse.JobSuccess || len(st.Steps) != 3 {
			t.Fatalf("gateway %v: %+v %v", gateway, st, err)
		}
		logs, err := c.Job.ScriptLogs(ctx, scope, run, ids)
		if err != nil || len(logs) != len(ids) {
			t.Fatalf("gateway %v: logs %v %v", gateway, logs, err)
		}
	}
}

// More than 50,000 hosts, JOB's default limit of one script job, are sent
// as jobs of at most 50,000: none is refused with 1244022.
func TestScriptSplitAt50000(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var sizes []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Job    int64 `json:"job_instance_id"`
			Target struct {
				HostIDs []int64 `json:"host_id_list"`
			} `json:"target_server"`
		}
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &req)
		reply := map[string]any{"result": true, "code": 0}
		switch {
		case strings.HasSuffix(r.URL.Path, "/fast_execute_script/") && len(req.Target.HostIDs) > 50000:
			reply = map[string]any{"result": false, "code": gse.CodeJobScriptTargets, "message": "The number of script task target servers exceeds the limit: 50000"}
		case strings.HasSuffix(r.URL.Path, "/fast_execute_script/"):
			mu.Lock()
			sizes = append(sizes, len(req.Target.HostIDs))
			reply["data"] = map[string]any{"job_instance_id": len(sizes), "step_instance_id": 10 + len(sizes)}
			mu.Unlock()
		default:
			reply["data"] = map[string]any{"finished": true, "job_instance": map[string]any{"status": gse.JobSuccess},
				"step_instance_list": []any{map[string]any{"step_instance_id": 10 + req.Job, "status": gse.JobSuccess}}}
		}
		_ = json.NewEncoder(w).Encode(reply)
	}))
	t.Cleanup(srv.Close)
	c, err := gse.New(gse.Config{Endpoint: srv.URL, AppCode: testCode, AppSecret: testSecret, Username: "admin", RateLimit: testRate, PollInitial: time.Millisecond, PollMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, 50001)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	ctx := ctxTimeout(t, 10*time.Second)
	run, err := c.Job.ExecuteScript(ctx, gse.BizScope(2), gse.Script{Content: "true", Account: "root"}, gse.JobTargets{HostIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sizes) != "[50000 1]" {
		t.Errorf("jobs of %v hosts", sizes)
	}
	if st, err := c.Job.WaitScript(ctx, gse.BizScope(2), run); err != nil || len(st.Steps) != 2 {
		t.Errorf("wait: %+v %v", st, err)
	}
}

// A permission field of another shape than IAM's leaves the refusal as it
// is: readable, its code and kind kept.
func TestPermissionOfAnotherShape(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"result": false, "code": 1306403, "message": "no permission", "permission": "apply in the developer center"}`)
	}))
	t.Cleanup(srv.Close)
	c, err := gse.New(gse.Config{Endpoint: srv.URL, AppCode: testCode, AppSecret: testSecret, Username: "admin", RateLimit: testRate})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Job.JobInstanceStatus(ctxTimeout(t, 5*time.Second), gse.BizScope(2), 1, false)
	var ae *gse.APIError
	if !errors.As(err, &ae) || ae.Code != gse.CodeESBNoPermission || gse.KindOf(err) != gse.KindPermission || ae.Permission != nil {
		t.Fatalf("err = %#v", err)
	}
}
