package managedprocess_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/managedprocess"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// Delete trusts the refreshed state and reads no status first. When the state
// is stale (destroy -refresh=false) and the process is gone from a host, the
// stop fails there: Delete then reads the status of just that host, skips it,
// and clears the others.
func TestDeleteSkipsHostsGoneSinceRefresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := acctest.NewEnv(t)
	c, err := gse.New(gse.Config{Endpoint: e.URL, AppCode: acctest.AppCode, AppSecret: acctest.AppSecret, Username: "admin",
		PollInitial: time.Millisecond, PollMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	meta := gse.Meta{Namespace: "gse", Name: "proc-test"}
	targets := []gse.Host{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}}
	spec := &gse.Spec{Identity: gse.Identity{ProcName: "proc-test", SetupPath: "/data/gsetest", PidPath: "/data/gsetest/proc-test.pid", User: "root"},
		Control: gse.Control{StartCmd: "./start.sh", StopCmd: "./stop.sh"}, Resource: &gse.Resource{CPU: 10, Mem: 10}, MonitorPolicy: &gse.MonitorPolicy{AutoType: 1}}
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, targets, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: meta, Hosts: targets, Op: gse.OpStart, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.GSE().Drift(simulator.DriftUnregister, "gse", "proc-test", 0, "10.0.0.2"); err != nil {
		t.Fatal(err)
	}

	host := func(ip string) hosts.Model {
		return hosts.Model{IP: types.StringValue(ip), BkCloudID: types.Int64Value(0), BkSupplierID: types.Int64Value(0)}
	}
	s, raw := managedprocess.RawWith(map[string]tftypes.Value{
		"meta.namespace": tftypes.NewValue(tftypes.String, "gse"),
		"meta.name":      tftypes.NewValue(tftypes.String, "proc-test"),
		"hosts":          tftypes.NewValue(tftypes.String, hosts.NewList([]hosts.Model{host("10.0.0.1"), host("10.0.0.2")}).ValueString()),
		"running":        tftypes.NewValue(tftypes.Bool, true),
		"managed":        tftypes.NewValue(tftypes.Bool, true),
	})
	state := tfsdk.State{Schema: s, Raw: raw}
	statusReads := e.Sim.Calls("get_proc_status_v2")
	resp := resource.DeleteResponse{State: state}
	managedprocess.ResourceWithClient(c).Delete(ctx, resource.DeleteRequest{State: state}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("delete failed: %v", resp.Diagnostics)
	}
	if p := e.Sim.GSE().Processes(); len(p) != 0 {
		t.Errorf("processes left after delete: %+v", p)
	}
	if n := e.Sim.Calls("get_proc_status_v2") - statusReads; n != 1 {
		t.Errorf("get_proc_status_v2 called %d times, want 1 (for the host where the stop failed)", n)
	}
	// The state holds no spec (as after import), so the stop goes through operate_proc.
	if n := e.Sim.Calls("operate_proc"); n != 1 {
		t.Errorf("operate_proc called %d times, want 1 (one stop; a stop also unhosts)", n)
	}
}

// Through the GSE 2.0 gateway, which has no unregister, a destroy warns that
// the stopped records stay, naming them; through ESB it unregisters and says
// nothing.
func TestDeleteWarnsOfRecordsLeftOnGSE2(t *testing.T) {
	t.Parallel()
	for _, m := range acctest.Modes {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			e := acctest.NewEnvIn(t, m)
			meta := gse.Meta{Namespace: "gse", Name: "proc-test"}
			start := gse.OpStart
			e.Register(t, meta, []string{"0:10.0.0.1", "1:10.0.0.2"}, &start)
			host := func(cloud int64, ip string) hosts.Model {
				return hosts.Model{IP: types.StringValue(ip), BkCloudID: types.Int64Value(cloud), BkSupplierID: types.Int64Value(0)}
			}
			s, raw := managedprocess.RawWith(map[string]tftypes.Value{
				"meta.namespace": tftypes.NewValue(tftypes.String, "gse"),
				"meta.name":      tftypes.NewValue(tftypes.String, "proc-test"),
				"hosts":          tftypes.NewValue(tftypes.String, hosts.NewList([]hosts.Model{host(0, "10.0.0.1"), host(1, "10.0.0.2")}).ValueString()),
				"running":        tftypes.NewValue(tftypes.Bool, true),
				"managed":        tftypes.NewValue(tftypes.Bool, true),
				// The gateway's operations carry the spec.
				"spec.identity.proc_name":       tftypes.NewValue(tftypes.String, "proc-test"),
				"spec.identity.setup_path":      tftypes.NewValue(tftypes.String, "/opt/proc-test"),
				"spec.identity.pid_path":        tftypes.NewValue(tftypes.String, "/opt/proc-test/p.pid"),
				"spec.identity.user":            tftypes.NewValue(tftypes.String, "root"),
				"spec.control.stop_cmd":         tftypes.NewValue(tftypes.String, "./stop.sh"),
				"spec.resource.cpu":             tftypes.NewValue(tftypes.Number, 5),
				"spec.resource.mem":             tftypes.NewValue(tftypes.Number, 5),
				"spec.monitor_policy.auto_type": tftypes.NewValue(tftypes.Number, 1),
			})
			state := tfsdk.State{Schema: s, Raw: raw}
			resp := resource.DeleteResponse{State: state}
			managedprocess.ResourceWithClient(e.Client(t)).Delete(ctx, resource.DeleteRequest{State: state}, &resp)
			if resp.Diagnostics.HasError() {
				t.Fatalf("delete failed: %v", resp.Diagnostics)
			}
			warnings := resp.Diagnostics.Warnings()
			if !m.Gateway {
				if len(warnings) != 0 {
					t.Errorf("warnings through ESB: %v", warnings)
				}
				return
			}
			if len(warnings) != 1 {
				t.Fatalf("warnings %v, want the records left", warnings)
			}
			w := warnings[0].Summary() + " " + warnings[0].Detail()
			for _, want := range []string{"gse/proc-test stays registered on GSE 2.0, stopped and unhosted", "0:10.0.0.1, 1:10.0.0.2", "no API that removes a process"} {
				if !strings.Contains(w, want) {
					t.Errorf("warning %q lacks %q", w, want)
				}
			}
			for _, p := range e.Sim.GSE().Processes() {
				if p.Hosted || p.Running {
					t.Errorf("%s still hosted or running: %+v", p.IP, p)
				}
			}
		})
	}
}

// An imported process never applied has no spec in its state. Through ESB,
// destroy acts on the registered spec (operate_proc); through the GSE 2.0
// gateway, which operates only with the full spec, it is refused before any
// call, naming the hosts and what to do, and the process stays as it was.
func TestDeleteWithoutSpec(t *testing.T) {
	t.Parallel()
	for _, m := range acctest.Modes {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			e := acctest.NewEnvIn(t, m)
			meta := gse.Meta{Namespace: "gse", Name: "proc-test"}
			start := gse.OpStart
			e.Register(t, meta, []string{"0:10.0.0.1"}, &start)
			s, raw := managedprocess.RawWith(map[string]tftypes.Value{
				"meta.namespace": tftypes.NewValue(tftypes.String, "gse"),
				"meta.name":      tftypes.NewValue(tftypes.String, "proc-test"),
				"hosts": tftypes.NewValue(tftypes.String, hosts.NewList([]hosts.Model{
					{IP: types.StringValue("10.0.0.1"), BkCloudID: types.Int64Value(0), BkSupplierID: types.Int64Value(0)},
				}).ValueString()),
				"running": tftypes.NewValue(tftypes.Bool, true),
				"managed": tftypes.NewValue(tftypes.Bool, true),
			})
			state := tfsdk.State{Schema: s, Raw: raw}
			resp := resource.DeleteResponse{State: state}
			before := e.Sim.Calls("operate_proc") + e.Sim.Calls("operate_proc_v2") + e.Sim.Calls("operate_proc_multi")
			managedprocess.ResourceWithClient(e.Client(t)).Delete(context.Background(), resource.DeleteRequest{State: state}, &resp)
			if !m.Gateway {
				if resp.Diagnostics.HasError() {
					t.Fatalf("delete through ESB: %v", resp.Diagnostics)
				}
				if ps := e.Sim.GSE().Processes(); len(ps) != 0 {
					t.Errorf("left after delete through ESB: %+v", ps)
				}
				return
			}
			errs := resp.Diagnostics.Errors()
			if len(errs) != 1 {
				t.Fatalf("diagnostics %v, want one error", resp.Diagnostics)
			}
			msg := errs[0].Summary() + " " + errs[0].Detail()
			for _, want := range []string{"without its spec", "0:10.0.0.1", "operate_proc_v2", "apply once", "terraform state rm"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q lacks %q", msg, want)
				}
			}
			if n := e.Sim.Calls("operate_proc") + e.Sim.Calls("operate_proc_v2") + e.Sim.Calls("operate_proc_multi") - before; n != 0 {
				t.Errorf("%d operations sent, want none", n)
			}
			for _, p := range e.Sim.GSE().Processes() {
				if !p.Hosted || !p.Running {
					t.Errorf("%s changed by a refused delete: %+v", p.IP, p)
				}
			}
		})
	}
}
