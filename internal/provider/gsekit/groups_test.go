package gsekit_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/gsekit"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

// row is process alias of template tpl in module mod of set 1, on host,
// with work_path and start_cmd; the other required fields are set.
func row(alias string, tpl, mod, host int64, workPath, startCmd string) gse.ProcessRow {
	var r gse.ProcessRow
	r.Set.ID, r.Set.Name = 1, "set-a"
	r.Module.ID, r.Module.Name = mod, fmt.Sprintf("mod-%d", mod)
	r.Host.ID, r.ServiceInstance.ID, r.ProcessTemplate.ID = host, 10*mod+host, tpl
	user, stop, pid := "root", "./stop", "/data/run.pid"
	r.Process = gse.CMDBProcess{ID: tpl, Name: alias, FuncName: alias, WorkPath: &workPath, PidFile: &pid, User: &user, StartCmd: &startCmd, StopCmd: &stop}
	return r
}

// BuildGroups names instances as GSEKit does, renders them, splits a name
// whose instances differ in spec by origin, and skips what it cannot send,
// saying why.
func TestBuildGroups(t *testing.T) {
	two, prio := int64(2), int64(10)
	nginx := row("nginx", 1, 1, 1, "/data/nginx", "./nginx -p ${local_inst_id + 8079}")
	nginx.Process.ProcNum, nginx.Process.Priority = &two, &prio
	rows := []gse.ProcessRow{
		nginx,
		row("agent", 2, 1, 1, "/data/${bk_module_name}", "./agent"),
		row("agent", 2, 2, 2, "/data/${bk_module_name}", "./agent"),
		row("agent", 2, 1, 3, "/data/${bk_module_name}", "./agent"),
		row("agent", 2, 1, 4, "/data/${bk_module_name}", "./agent"),
		row("legacy", 3, 1, 1, "/data/legacy", "./run ${inst_id}"),
	}
	hosts := map[int64]*gsekit.Host{
		1: {CMDB: gse.CMDBHost{BkHostID: 1}, IP: "10.0.0.1"},
		2: {CMDB: gse.CMDBHost{BkHostID: 2}, IP: "10.0.0.2"},
		4: {CMDB: gse.CMDBHost{BkHostID: 4}, Unusable: "no IPv4 or IPv6 address"},
	}
	out := gsekit.BuildGroups(rows, hosts, "GSEKIT_BIZ_2", spec.Refuse)
	var keys []string
	for _, g := range out.Groups {
		keys = append(keys, g.Key)
	}
	if want := []string{"GSEKIT_BIZ_2/nginx_1", "GSEKIT_BIZ_2/nginx_2", "GSEKIT_BIZ_2/agent_1", "GSEKIT_BIZ_2/agent_1/tpl2-mod2"}; !slices.Equal(keys, want) {
		t.Fatalf("groups %q, want %q", keys, want)
	}
	n2 := out.Groups[1].Instances[0]
	if n2.Name != "nginx_2" || n2.N != 2 || n2.Spec.Control.StartCmd != "./nginx -p 8081" || n2.Priority != 10 {
		t.Errorf("nginx_2 is %s, instance %d, start_cmd %q, priority %d", n2.Name, n2.N, n2.Spec.Control.StartCmd, n2.Priority)
	}
	if mp := n2.Spec.MonitorPolicy; mp.AutoType != 1 || *mp.StartCheckSecs != gsekit.StartCheckSecs || *mp.OpTimeout != gsekit.OpTimeout {
		t.Errorf("nginx_2's monitor policy is %+v, want resident with GSEKit's defaults", mp)
	}
	if got := out.Groups[3].Instances[0].Spec.Identity.SetupPath; got != "/data/mod-2" {
		t.Errorf("agent_1 in module 2 has work_path %q, want /data/mod-2", got)
	}
	if len(out.Instances) != 4 {
		t.Errorf("%d instances in groups, want 4", len(out.Instances))
	}
	var reasons []string
	for _, s := range out.Skipped {
		reasons = append(reasons, s.Reason)
	}
	for i, want := range []string{"bk_host_id 3 is not among the business's hosts", "the host has no IPv4 or IPv6 address", "start_cmd holds ${inst_id}: inst_id numbers instances"} {
		if i >= len(reasons) || !strings.HasPrefix(reasons[i], want) {
			t.Errorf("skipped %q, want %q at %d", reasons, want, i)
		}
	}
}
