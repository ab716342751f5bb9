package gsekit_test

import (
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/gsekit"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

// skips is what BuildGroups skips of rows on hosts 1 to 3 (10.0.0.1, and
// 10.0.0.1 again on host 3, as CMDB's dynamic addressing allows), as
// "name@host: reason", and the names it groups.
func skips(t *testing.T, rows []gse.ProcessRow) (skipped map[string]gsekit.Skipped, grouped []string) {
	t.Helper()
	hosts := map[int64]*gsekit.Host{
		1: {CMDB: gse.CMDBHost{BkHostID: 1, InnerIP: "10.0.0.1"}, IP: "10.0.0.1"},
		2: {CMDB: gse.CMDBHost{BkHostID: 2, InnerIP: "10.0.0.2"}, IP: "10.0.0.2"},
		3: {CMDB: gse.CMDBHost{BkHostID: 3, InnerIP: "10.0.0.1"}, IP: "10.0.0.1"},
	}
	out := gsekit.BuildGroups(rows, hosts, "GSEKIT_BIZ_2", spec.Refuse)
	skipped = map[string]gsekit.Skipped{}
	for _, s := range out.Skipped {
		skipped[gsekit.InstanceName(s.Row.Process.Name, s.N)+"@"+string(rune('0'+s.Row.Host.ID))] = s
	}
	for _, in := range out.Instances {
		grouped = append(grouped, in.Name+"@"+string(rune('0'+in.Row.Host.ID)))
	}
	return skipped, grouped
}

// withID is r as CMDB process id.
func withID(r gse.ProcessRow, id int64) gse.ProcessRow {
	r.Process.ID = id
	return r
}

// A value gse_managed_process would refuse at plan skips its instance,
// naming the CMDB field, the attribute and the rule, with spec.Refuse's
// words; the rest of the business is grouped.
func TestBuildGroupsSkipsWhatTheResourceRefuses(t *testing.T) {
	relPid := row("rel", 4, 1, 1, "/data/rel", "./rel")
	pid := "run/rel.pid"
	relPid.Process.PidFile = &pid
	skipped, grouped := skips(t, []gse.ProcessRow{
		row("api v2", 1, 1, 1, "/data/api", "./api"),
		row("bin", 2, 1, 2, "data/bin", "./bin"),
		relPid,
		row("ok", 3, 1, 2, "/data/ok", "./ok"),
	})
	for key, want := range map[string]string{
		"api v2_1@1": `bk_process_name "api v2": gse_managed_process refuses meta.name "api v2_1": it must be non-empty and hold none of ':', '/', '@', ',' or whitespace`,
		"bin_1@2":    `work_path "data/bin": gse_managed_process refuses spec.identity.setup_path "data/bin": it must be an absolute path`,
		"rel_1@1":    `pid_file "run/rel.pid": gse_managed_process refuses spec.identity.pid_path "run/rel.pid": it must be an absolute path`,
	} {
		s, ok := skipped[key]
		if !ok || s.Kind != gsekit.SkipField || !strings.HasPrefix(s.Reason, want) {
			t.Errorf("%s: skipped %v, kind %d, reason %q; want a field skip %q", key, ok, s.Kind, s.Reason, want)
		}
	}
	if len(grouped) != 1 || grouped[0] != "ok_1@2" {
		t.Errorf("grouped %q, want only ok_1@2", grouped)
	}
}

// The same alias as the same instance twice on one host address is GSEKit's
// DuplicateProcessInstException: every instance of the key is skipped,
// naming the processes; instances of other numbers and hosts are not.
func TestBuildGroupsSkipsDuplicateInstances(t *testing.T) {
	two := int64(2)
	first := withID(row("nginx", 1, 1, 1, "/data/nginx", "./nginx"), 11)
	first.Process.ProcNum = &two
	skipped, grouped := skips(t, []gse.ProcessRow{
		first,
		withID(row("nginx", 5, 2, 1, "/data/nginx", "./nginx"), 12), // the same host in a second module
		withID(row("nginx", 1, 1, 2, "/data/nginx", "./nginx"), 13),
		withID(row("agent", 2, 1, 1, "/data/agent", "./agent"), 14),
		withID(row("agent", 2, 3, 3, "/data/agent", "./agent"), 15), // another host at the same address
	})
	for _, key := range []string{"nginx_1@1", "agent_1@1", "agent_1@3"} {
		s, ok := skipped[key]
		if !ok || s.Kind != gsekit.SkipDuplicate || !strings.Contains(s.Reason, "DuplicateProcessInstException") {
			t.Errorf("%s: skipped %v, kind %d, reason %q; want a duplicate", key, ok, s.Kind, s.Reason)
		}
	}
	if r := skipped["nginx_1@1"].Reason; !strings.HasPrefix(r, "bk_process_id 11 and 12 run the same alias as the same instance on one host (GSEKit's key 10.0.0.1-0-nginx-1)") {
		t.Errorf("nginx_1's reason %q does not name both processes and the key", r)
	}
	if strings.Join(grouped, " ") != "nginx_2@1 nginx_1@2" || len(skipped) != 3 { // both processes' nginx_1@1, agent_1@1, agent_1@3
		t.Errorf("grouped %q and skipped %d, want nginx_2@1 nginx_1@2 grouped, 3 skipped", grouped, len(skipped))
	}
}

// GSEKit requires per operation what OP_TYPE_PROCESS_ATTR_MAP names: a
// process without stop_cmd (or restart_cmd, reload_cmd) is grouped, one
// without start_cmd is not; a null priority is 0, as GSEKit orders it.
func TestBuildGroupsCommandsAndPriority(t *testing.T) {
	noStop := row("nostop", 1, 1, 1, "/data/a", "./a")
	empty := ""
	noStop.Process.StopCmd = &empty
	noStart := row("nostart", 2, 1, 1, "/data/b", "")
	skipped, grouped := skips(t, []gse.ProcessRow{noStop, noStart})
	if strings.Join(grouped, " ") != "nostop_1@1" {
		t.Errorf("grouped %q, want nostop_1@1", grouped)
	}
	if s := skipped["nostart_1@1"]; s.Kind != gsekit.SkipField || !strings.HasPrefix(s.Reason, "start_cmd is empty: GSEKit neither starts nor hosts") {
		t.Errorf("nostart_1: kind %d, reason %q", s.Kind, s.Reason)
	}
	out := gsekit.BuildGroups([]gse.ProcessRow{noStop}, map[int64]*gsekit.Host{1: {CMDB: gse.CMDBHost{BkHostID: 1}, IP: "10.0.0.1"}}, "ns", spec.Refuse)
	if in := out.Instances[0]; in.Priority != 0 || in.Spec.Control.StopCmd != "" {
		t.Errorf("priority %d, stop_cmd %q; want 0 and empty", in.Priority, in.Spec.Control.StopCmd)
	}
}

// What Mako itself refuses is refused, for Mako's reason: an integer with a
// leading zero (Python 3), a closing tag without its tag, a backslash
// before a CRLF (Mako joins the lines as before an LF).
func TestRenderRefusesWhatMakoRefuses(t *testing.T) {
	checkRenders(t, []renderCase{
		{in: "-p ${local_inst_id + 010}", refused: "010 has a leading zero, which Python 3 refuses"},
		{in: "-p ${local_inst_id * 007}", refused: "007 has a leading zero"},
		{in: "-p ${local_inst_id + 00}", want: "-p 2"},
		{in: "-p ${local_inst_id + 0}", want: "-p 2"},
		{in: "-p ${local_inst_id + 100}", want: "-p 102"},
		{in: "./run </%def>", refused: "a Mako closing tag (</%...>) without its opening tag"},
		{in: "./a </% x>", refused: "closing tag"},
		{in: "./a \\\r\n  --b", refused: "backslash"},
		{in: "./a\r\n--b", want: "./a\r\n--b"},
	})
}
