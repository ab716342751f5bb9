package managedprocess

import (
	"strings"
	"testing"
)

// observedFlag is the drift judgement of managed and running after a read.
func TestObservedFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		want     bool
		n, total int
		recorded bool
	}{
		{want: true, n: 3, total: 3, recorded: true},   // every host has it: no drift
		{want: true, n: 2, total: 3, recorded: false},  // one host lost it: drift to false
		{want: false, n: 0, total: 3, recorded: false}, // none has it: no drift
		{want: false, n: 1, total: 3, recorded: true},  // one host gained it: drift to true
		{want: true, n: 0, total: 0, recorded: true},   // no host left: nothing contradicts
	} {
		if got := observedFlag(tc.want, tc.n, tc.total); got != tc.recorded {
			t.Errorf("observedFlag(%v, %d, %d) = %v, want %v", tc.want, tc.n, tc.total, got, tc.recorded)
		}
	}
}

func TestParseImportID(t *testing.T) {
	t.Parallel()
	meta, hosts, err := parseImportID("gse/proc-test@0:0:10.0.0.1,2:1:2001:db8::1")
	if err != nil {
		t.Fatal(err)
	}
	if meta.Namespace.ValueString() != "gse" || meta.Name.ValueString() != "proc-test" || !meta.Labels.IsNull() {
		t.Fatalf("meta = %+v", meta)
	}
	if len(hosts) != 2 || hosts[1].IP.ValueString() != "2001:db8::1" || hosts[1].BkCloudID.ValueInt64() != 2 || hosts[1].BkSupplierID.ValueInt64() != 1 {
		t.Fatalf("hosts = %+v", hosts)
	}
	// bk_cloud_id:ip, as provider::gse::agent_id spells a host: bk_supplier_id 0.
	_, hosts, err = parseImportID("monitor/ghost@0:10.0.0.6,3:0:10.0.0.7")
	if err != nil || len(hosts) != 2 || hosts[0].IP.ValueString() != "10.0.0.6" || hosts[0].BkCloudID.ValueInt64() != 0 || hosts[0].BkSupplierID.ValueInt64() != 0 ||
		hosts[1].BkCloudID.ValueInt64() != 3 {
		t.Fatalf("hosts = %+v, %v", hosts, err)
	}
	_, hosts, err = parseImportID("gse/proc-test@agent_id=" + agentA + ",1:0:10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 2 || hosts[0].AgentID.ValueString() != agentA || !hosts[0].IP.IsNull() || !hosts[0].BkCloudID.IsNull() || hosts[1].IP.ValueString() != "10.0.0.1" {
		t.Fatalf("hosts = %+v", hosts)
	}
	for id, want := range map[string]string{
		"gse/proc-test":                          "missing '@'",
		"gse@0:0:10.0.0.1":                       "is not namespace/name",
		"gse/a:b@0:0:10.0.0.1":                   "is not namespace/name",
		"/p@0:0:10.0.0.1":                        "is not namespace/name",
		"gse/p@0:10.0.0.x":                       "\"10.0.0.x\" is not an IP address",
		"gse/p@x:10.0.0.1":                       "is not bk_cloud_id:ip: bk_cloud_id must be a non-negative integer",
		"gse/p@0::10.0.0.1":                      "is not bk_cloud_id:bk_supplier_id:ip",
		"gse/p@0:0:10.0.0.1%eth0":                "without zone",
		"gse/p@0:0:::1,0:0:0:0:0::1":             "listed twice",
		"gse/p@0:0:10.0.0.1,agent_id=0:10.0.0.1": "listed twice",
		"gse/p@agent_id=0:10.0.0":                "the agent id is neither 36 hex characters",
	} {
		if _, _, err := parseImportID(id); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", id, err, want)
		}
	}
}

// Two agent ids of the 36-hex form.
const (
	agentA = "0200000007525400f355781710390005465c"
	agentB = "0200000007525400f355781710390005465d"
)
