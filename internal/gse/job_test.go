package gse_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

func jobProc(ips ...string) gse.JobProcess {
	resident := int64(1)
	p := gse.JobProcess{ProcName: "nginx", SetupPath: "/data/nginx/bin/", PidPath: "/data/nginx/nginx.pid", Type: &resident}
	for _, ip := range ips {
		p.IPList = append(p.IPList, gse.JobIP{IP: ip})
	}
	return p
}

// Hosting through JOB is operate_process op_type 3 and 4 (the JOB server
// sends them to GSE's register / unregister hosting): a resident process ends
// hosted and running, then unhosted.
func TestJobHostAndStatus(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{TaskPolls: simulator.TaskPolls{Unqueued: 2, Pending: 2}})
	ctx := ctxTimeout(t, 5*time.Second)
	scope := gse.JobScope{Type: "biz", ID: "3"}
	p := jobProc("10.0.0.1", "10.0.0.2")

	out, err := c.Job.Operate(ctx, scope, gse.OpHost, []gse.JobProcess{p})
	if err != nil || len(out.IPs) != 2 || out.TaskID == "" {
		t.Fatalf("register: %+v %v", out, err)
	}
	if got := sim.JOB().Processes(); len(got) != 2 || !got[0].Hosted || !got[0].Running {
		t.Fatalf("JOB processes %+v, want 2 hosted and running", got)
	}
	// The setup_path's trailing slash makes the key ".../bin//nginx"; the outcome still matches.
	out, err = c.Job.Status(ctx, scope, p)
	if err != nil || len(out.IPs) != 2 {
		t.Fatalf("status: %+v %v", out, err)
	}
	st := out.IPs[0].Status
	if out.IPs[0].ContentErr != nil || len(st.Instances) != 1 {
		t.Fatalf("content %+v %v", st, out.IPs[0].ContentErr)
	}
	if inst := st.Instances[0]; inst.IsAuto == nil || !*inst.IsAuto || inst.PID <= 0 || inst.Version == "" {
		t.Fatalf("instance %+v", inst)
	}
	if sim.Calls("job/operate_process") != 2 || sim.Calls("job/operate_proc") != 0 || sim.Calls("job/manage_proc") != 0 {
		t.Fatal("hosting and status without cmd_shell_ext go through operate_process")
	}
	// cmd_shell_ext is operate_proc's alone.
	p.CmdShellExt = "sh"
	if _, err := c.Job.Operate(ctx, scope, gse.OpRestart, []gse.JobProcess{p}); err != nil {
		t.Fatal(err)
	}
	if sim.Calls("job/operate_proc") != 1 {
		t.Fatal("cmd_shell_ext did not select operate_proc")
	}
	p.CmdShellExt = ""
	if _, err := c.Job.Operate(ctx, scope, gse.OpUnhost, []gse.JobProcess{p}); err != nil {
		t.Fatal(err)
	}
	for _, got := range sim.JOB().Processes() {
		if got.Name == "/data/nginx/bin//nginx" && got.Hosted {
			t.Fatalf("still hosted: %+v", got)
		}
	}
}

func TestJobFailureNamesIP(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	sim.AddHostFault(simulator.HostFault{API: "job/operate_process", IP: "10.0.0.2", Code: 65535, Message: "start.sh: permission denied", Times: 1})
	out, err := c.Job.Operate(ctxTimeout(t, 5*time.Second), gse.JobScope{Type: "biz_set", ID: "9"}, gse.OpHost, []gse.JobProcess{jobProc("10.0.0.1", "10.0.0.2")})
	if err == nil || len(out.IPs) != 2 {
		t.Fatalf("outcome %+v err %v", out, err)
	}
	for _, want := range []string{"operate_process", "op_type 3", "of JOB biz_set:9//data/nginx/bin/nginx (task ", "failed on 1 of 2 hosts", "10.0.0.2 (bk_cloud_id 0): GSE code 65535: start.sh: permission denied"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// The JOB server refuses a process without pid_path (ILLEGAL_PARAM), at once.
func TestJobIllegalParam(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	noPid := jobProc("10.0.0.1")
	noPid.PidPath = ""
	_, err := c.Job.Operate(ctxTimeout(t, 5*time.Second), gse.JobScope{Type: "biz", ID: "3"}, gse.OpHost, []gse.JobProcess{noPid})
	if err == nil || !strings.Contains(err.Error(), "code 1241002") || gse.KindOf(err) == gse.KindRemoved {
		t.Fatalf("err = %v", err)
	}
	if n := sim.Calls("job/operate_process"); n != 1 {
		t.Errorf("operate_process sent %d times, want 1", n)
	}
}

// A JOB 3.7+ (no process APIs: ESB answers 1306201, or a proxy HTTP 404) is
// a RemovedError naming the API, returned without a retry.
func TestJobRemoved(t *testing.T) {
	t.Parallel()
	for name, arm := range map[string]func(*simulator.Server){
		"1306201": func(s *simulator.Server) { s.JOB().SetProcessAPIsRemoved(true) },
		"HTTP 404": func(s *simulator.Server) {
			s.AddFault(simulator.Fault{API: "job/operate_process", HTTPStatus: 404, Times: simulator.Forever})
		},
	} {
		c, sim, _ := newClient(t, simulator.Options{})
		arm(sim)
		_, err := c.Job.Status(ctxTimeout(t, 5*time.Second), gse.JobScope{Type: "biz", ID: "3"}, jobProc("10.0.0.1"))
		var removed *gse.RemovedError
		if !errors.As(err, &removed) || removed.API != "operate_process" || gse.KindOf(err) != gse.KindRemoved ||
			!strings.Contains(err.Error(), "this installation's JOB (3.7 or later) no longer serves operate_process") {
			t.Errorf("%s: err = %v", name, err)
		}
		if n := sim.Calls("job/operate_process"); n != 1 {
			t.Errorf("%s: operate_process sent %d times, want 1 (no retry)", name, n)
		}
	}
}

// operate_proc (cmd_shell_ext) runs JOB's own scripts, not the commands sent,
// as a resident process; a limit outside 0-100 becomes 50 / 30, an absent one 0.
func TestJobOperateProcDefinition(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{InstantTasks: true})
	p := jobProc("10.0.0.1")
	p.CmdShellExt, p.StartCmd, p.Type = "sh", "./my-start", nil
	over := int64(101)
	p.CPULmt = &over
	if _, err := c.Job.Operate(ctxTimeout(t, 5*time.Second), gse.JobScope{Type: "biz", ID: "3"}, gse.OpStart, []gse.JobProcess{p}); err != nil {
		t.Fatal(err)
	}
	got, ok := sim.JOB().Process("biz:3", "/data/nginx/bin/nginx", 0, "10.0.0.1") // value_key: the full path
	var def simulator.JobDefinition
	if !ok || json.Unmarshal(got.Spec, &def) != nil {
		t.Fatalf("process %+v %v", got, ok)
	}
	if def.StartCmd != "cd /data/nginx/bin/ && ./start.sh nginx &" || def.Type != 1 || def.CPULmt != 50 || def.MemLmt != 0 || def.Account != "root" {
		t.Errorf("definition %+v", def)
	}
}

func TestParseContentFlags(t *testing.T) {
	t.Parallel()
	c, err := gse.ParseContent(`{"value":[{"procName":"a","isAuto":"1","result":"ok"}],"process":[{"procname":"a","instance":[{"pid":-1,"isAuto":0}]}]}`)
	if err != nil || *c.IsAuto != true || *c.Instances[0].IsAuto != false || c.Instances[0].PID != -1 {
		t.Fatalf("%+v %v", c, err)
	}
	if c, err := gse.ParseContent(""); err != nil || len(c.Instances) != 0 {
		t.Fatal("empty content")
	}
	if _, err := gse.ParseContent("{not json"); err == nil {
		t.Fatal("bad content accepted")
	}
}

// A status answer in the documentation's shape (content an object, startTime
// "", string times, no isAuto) is read: pid and running, hosting unknown.
// Several instances are all judged.
func TestJobStatusShapesAndInstances(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{InstantTasks: true})
	ctx := ctxTimeout(t, 5*time.Second)
	scope := gse.JobScope{Type: "biz", ID: "3"}
	p := jobProc("10.0.0.1")
	two := int64(2)
	p.InstanceNum = &two
	if _, err := c.Job.Operate(ctx, scope, gse.OpHost, []gse.JobProcess{p}); err != nil {
		t.Fatal(err)
	}
	sim.JOB().InstancesDown("biz:3", "/data/nginx/bin//nginx", 0, "10.0.0.1", 1)
	for _, shape := range []simulator.JobContentShape{simulator.JobContentGSE, simulator.JobContentStrings, simulator.JobContentDoc} {
		sim.JOB().SetContentShape(shape)
		out, err := c.Job.Status(ctx, scope, p)
		if err != nil || len(out.IPs) != 1 || out.IPs[0].ContentErr != nil {
			t.Fatalf("shape %d: %+v %v", shape, out, err)
		}
		st := out.IPs[0].Status
		if !st.Running() || st.RunningInstances() != 1 || st.PID() <= 0 || len(st.Instances) != 2 {
			t.Errorf("shape %d: the second instance runs, got %+v", shape, st)
		}
		if hosted := st.Hosted(); (shape == simulator.JobContentDoc) != (hosted == nil) || (hosted != nil && !*hosted) {
			t.Errorf("shape %d: hosted %v", shape, hosted)
		}
	}
	if _, err := c.Job.Operate(ctx, scope, gse.OpUnhost, []gse.JobProcess{p}); err != nil {
		t.Fatal(err)
	}
}
