package gse_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

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

	out, err := c.Job.Manage(ctx, scope, gse.JobRegister, p)
	if err != nil || len(out.IPs) != 2 || out.TaskID == "" {
		t.Fatalf("register: %+v %v", out, err)
	}
	if got := len(sim.JobProcesses()); got != 2 {
		t.Fatalf("%d JOB processes, want 2", got)
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
	if sim.Calls("job/operate_process") != 1 || sim.Calls("job/operate_proc") != 0 {
		t.Fatal("a status query without cmd_shell_ext goes through operate_process")
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
	if _, err := c.Job.Manage(ctx, scope, gse.JobUnregister, p); err != nil {
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
	out, err := c.Job.Manage(ctxTimeout(t, 5*time.Second), gse.JobScope{Type: "biz_set", ID: "9"}, gse.JobRegister, jobProc("10.0.0.1", "10.0.0.2"))
	if err == nil || len(out.IPs) != 2 {
		t.Fatalf("outcome %+v err %v", out, err)
	}
	for _, want := range []string{"manage_proc", "of JOB biz_set:9//data/nginx/bin/nginx (task ", "failed on 1 of 2 hosts", "10.0.0.2 (bk_cloud_id 0): GSE code 65535: start.sh: permission denied"} {
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
	_, err := c.Job.Manage(ctxTimeout(t, 5*time.Second), gse.JobScope{Type: "biz", ID: "3"}, gse.JobRegister, periodic)
	if err == nil || !strings.Contains(err.Error(), "GSE code 1306406") || !strings.Contains(err.Error(), "cycle_time") {
		t.Fatalf("err = %v", err)
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
	if _, err := c.Job.Manage(ctx, scope, gse.JobRegister, p); err != nil {
		t.Fatal(err)
	}
	sim.JobInstancesDown("biz:3", "/data/nginx/bin//nginx", 0, "10.0.0.1", 1)
	for _, shape := range []simulator.JobContentShape{simulator.JobContentGSE, simulator.JobContentStrings, simulator.JobContentDoc} {
		sim.SetJobContentShape(shape)
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
	if _, err := c.Job.Manage(ctx, scope, gse.JobUnregister, p); err != nil {
		t.Fatal(err)
	}
}
