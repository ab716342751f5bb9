package gse_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

func TestSplitJobResultKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string][3]string{
		"/data/nginx/bin/nginx:0:10.0.0.1":        {"/data/nginx/bin/nginx", "0", "10.0.0.1"},
		`C:\gse\plugins/bkmonitorbeat:2:10.0.0.9`: {`C:\gse\plugins/bkmonitorbeat`, "2", "10.0.0.9"},
		"/opt/app/app:12:2001:db8::1":             {"/opt/app/app", "12", "2001:db8::1"},
		`D:\a:b/c:0:fe80::1`:                      {`D:\a:b/c`, "0", "fe80::1"},
	} {
		path, cloud, ip, err := gse.SplitJobResultKey(key)
		if err != nil || path != want[0] || ip != want[2] || want[1] != strconv.FormatInt(cloud, 10) {
			t.Errorf("%q: got %q %d %q %v, want %v", key, path, cloud, ip, err, want)
		}
	}
	for _, bad := range []string{"nginx", "/a/b:x:10.0.0.1", "/a/b:0:not-an-ip"} {
		if _, _, _, err := gse.SplitJobResultKey(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func jobProc(ips ...string) gse.JobProcess {
	resident := int64(1)
	p := gse.JobProcess{ProcName: "nginx", ProcOwner: "root", SetupPath: "/data/nginx/bin/", PidPath: "/data/nginx/nginx.pid", Type: &resident}
	for _, ip := range ips {
		p.IPList = append(p.IPList, gse.JobIP{IP: ip})
	}
	return p
}

func TestJobManageAndStatus(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 2, Pending: 2}})
	ctx := ctxTimeout(t, 5*time.Second)
	scope := gse.JobScope{Type: "biz", ID: "3"}
	p := jobProc("10.0.0.1", "10.0.0.2")

	out, err := c.JobManage(ctx, scope, gse.JobRegister, []gse.JobProcess{p})
	if err != nil || len(out.Hosts) != 2 || out.TaskID == "" {
		t.Fatalf("register: %+v %v", out, err)
	}
	if got := len(sim.JobProcesses()); got != 2 {
		t.Fatalf("%d JOB processes, want 2", got)
	}
	// The setup_path's trailing slash makes the key ".../bin//nginx"; the outcome still matches.
	out, err = c.JobOperate(ctx, scope, gse.OpStatus, []gse.JobProcess{p})
	if err != nil || len(out.Hosts) != 2 {
		t.Fatalf("status: %+v %v", out, err)
	}
	content, err := gse.ParseContent(out.Hosts[0].Content)
	if err != nil || len(content.Process) != 1 || content.Process[0].ProcName != "nginx" {
		t.Fatalf("content %+v %v", content, err)
	}
	inst := content.Process[0].Instance[0]
	if !bool(inst.IsAuto) || inst.PID <= 0 || inst.Version == "" {
		t.Fatalf("instance %+v", inst)
	}
	if sim.Calls("job/operate_process") != 1 || sim.Calls("job/operate_proc") != 0 {
		t.Fatal("a status query without cmd_shell_ext goes through operate_process")
	}
	// cmd_shell_ext is operate_proc's (seed 000).
	p.CmdShellExt = "sh"
	if _, err := c.JobOperate(ctx, scope, gse.OpRestart, []gse.JobProcess{p}); err != nil {
		t.Fatal(err)
	}
	if sim.Calls("job/operate_proc") != 1 {
		t.Fatal("cmd_shell_ext did not select operate_proc")
	}
	p.CmdShellExt = ""
	if _, err := c.JobManage(ctx, scope, gse.JobUnregister, []gse.JobProcess{p}); err != nil {
		t.Fatal(err)
	}
	if got := sim.JobProcesses(); len(got) != 0 {
		t.Fatalf("left: %+v", got)
	}
}

func TestJobFailureNamesIP(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	sim.AddHostFault(simulator.HostFault{API: "job/manage_proc", IP: "10.0.0.2", Code: 65535, Message: "start.sh: permission denied", Times: 1})
	out, err := c.JobManage(ctxTimeout(t, 5*time.Second), gse.JobScope{Type: "biz_set", ID: "9"}, gse.JobRegister, []gse.JobProcess{jobProc("10.0.0.1", "10.0.0.2")})
	if err == nil || len(out.Hosts) != 2 {
		t.Fatalf("outcome %+v err %v", out, err)
	}
	for _, want := range []string{"manage_proc", "biz_set:9", "failed on 1 of 2 hosts", "10.0.0.2 (bk_cloud_id 0): GSE code 65535: start.sh: permission denied"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestJobBadParams(t *testing.T) {
	t.Parallel()
	c, _, _ := newClient(t, simulator.Options{})
	periodic := jobProc("10.0.0.1")
	periodic.Type = nil // type 0 needs cycle_time
	_, err := c.JobManage(ctxTimeout(t, 5*time.Second), gse.JobScope{Type: "biz", ID: "3"}, gse.JobRegister, []gse.JobProcess{periodic})
	if err == nil || !strings.Contains(err.Error(), "GSE code 1306406") || !strings.Contains(err.Error(), "cycle_time") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseContentFlags(t *testing.T) {
	t.Parallel()
	c, err := gse.ParseContent(`{"value":[{"procName":"a","isAuto":"1","result":"ok"}],"process":[{"procname":"a","instance":[{"pid":-1,"isAuto":0}]}]}`)
	if err != nil || !bool(c.Value[0].IsAuto) || bool(c.Process[0].Instance[0].IsAuto) || c.Process[0].Instance[0].PID != -1 {
		t.Fatalf("%+v %v", c, err)
	}
	if c, err := gse.ParseContent(""); err != nil || c == nil {
		t.Fatal("empty content")
	}
	if _, err := gse.ParseContent("{not json"); err == nil {
		t.Fatal("bad content accepted")
	}
}
