package gse

import (
	"encoding/json"
	"net/netip"
	"strconv"
	"testing"
)

// A reply's keys are matched against the spellings built from what was sent;
// splitting them failed on IPv6 zones and on paths that end in ":<digits>".
func TestMatchJobResults(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		proc JobProcess
		ip   JobIP
		key  string // as the server writes it
	}{
		"plain":                  {JobProcess{SetupPath: "/data/nginx/bin", ProcName: "nginx"}, JobIP{IP: "10.0.0.1"}, "/data/nginx/bin/nginx:0:10.0.0.1"},
		"trailing slash as sent": {JobProcess{SetupPath: "/data/nginx/bin/", ProcName: "nginx"}, JobIP{IP: "10.0.0.1"}, "/data/nginx/bin//nginx:0:10.0.0.1"},
		"trailing slash folded":  {JobProcess{SetupPath: "/data/nginx/bin/", ProcName: "nginx"}, JobIP{IP: "10.0.0.1"}, "/data/nginx/bin/nginx:0:10.0.0.1"},
		"windows":                {JobProcess{SetupPath: `C:\gse\plugins`, ProcName: "bkmonitorbeat"}, JobIP{BkCloudID: 2, IP: "10.0.0.9"}, `C:\gse\plugins/bkmonitorbeat:2:10.0.0.9`},
		"ipv6 canonical":         {JobProcess{SetupPath: "/opt/app", ProcName: "app"}, JobIP{BkCloudID: 12, IP: "2001:DB8:0::1"}, "/opt/app/app:12:2001:db8::1"},
		"ipv6 zone":              {JobProcess{SetupPath: "/opt", ProcName: "a"}, JobIP{IP: "fe80::1%eth0"}, "/opt/a:0:fe80::1%eth0"},
		"zone dropped":           {JobProcess{SetupPath: "/opt", ProcName: "a"}, JobIP{IP: "fe80::1%eth0"}, "/opt/a:0:fe80::1"},
		"path ends in :0 (fuzz)": {JobProcess{SetupPath: "0", ProcName: ""}, JobIP{IP: "31::"}, "0/:0:31::"},
		"proc name ends in :0":   {JobProcess{SetupPath: "a", ProcName: "b:0"}, JobIP{IP: "1::"}, "a/b:0:0:1::"}, // split from the right: path "a/b", ip "0:1::"
		"mapped ipv4":            {JobProcess{SetupPath: "/opt", ProcName: "a"}, JobIP{IP: "::ffff:10.0.0.1"}, "/opt/a:0:10.0.0.1"},
		"colon in path":          {JobProcess{SetupPath: `D:\a:b`, ProcName: "c"}, JobIP{IP: "fe80::1"}, `D:\a:b/c:0:fe80::1`},
	} {
		other := JobIP{BkCloudID: tc.ip.BkCloudID + 1, IP: tc.ip.IP} // same IP, another cloud: must not take the entry
		keys := [][]string{jobResultKeys(tc.proc, tc.ip), jobResultKeys(tc.proc, other)}
		got := matchJobResults(map[string]HostResult{tc.key: {ErrorMsg: "mine"}, "unrelated:0:10.9.9.9": {}}, keys)
		if len(got) != 1 || got[0].ErrorMsg != "mine" {
			t.Errorf("%s: %q matched %+v", name, tc.key, got)
		}
	}
}

// FuzzMatchJobResults: whatever the path and IP, the key the server builds
// from them (in any spelling it may use) is matched to that IP and no other.
func FuzzMatchJobResults(f *testing.F) {
	f.Add("/data/nginx/bin/", "nginx", int64(0), "10.0.0.1", "10.0.0.2", true, false)
	f.Add("0", "", int64(0), "31::", "0:31::", false, true)
	f.Add(`C:\x:1`, "p", int64(3), "fe80::1%eth0", "fe80::1%eth1", false, false)
	f.Fuzz(func(t *testing.T, setupPath, procName string, cloud int64, ip, otherIP string, folded, canonical bool) {
		p := JobProcess{SetupPath: setupPath, ProcName: procName}
		a, b := JobIP{BkCloudID: cloud, IP: ip}, JobIP{BkCloudID: cloud, IP: otherIP}
		if a.Key() == b.Key() {
			return // the same host: the provider rejects such a list
		}
		if _, err := netip.ParseAddr(ip); err != nil {
			canonical = false
		}
		path, addr := setupPath+"/"+procName, ip
		if folded {
			path = p.Path()
		}
		if canonical {
			addr = netip.MustParseAddr(ip).String()
		}
		key := path + ":" + strconv.FormatInt(cloud, 10) + ":" + addr
		got := matchJobResults(map[string]HostResult{key: {ErrorMsg: "a"}}, [][]string{jobResultKeys(p, a), jobResultKeys(p, b)})
		if got[0].ErrorMsg != "a" {
			t.Fatalf("%q not matched to %+v", key, a)
		}
		if _, ok := got[1]; ok {
			t.Fatalf("%q matched to %+v as well", key, b)
		}
	})
}

// FuzzGetProcResult: any reply body decodes or fails cleanly, and every
// content it holds parses or fails cleanly, with a consistent judgement.
func FuzzGetProcResult(f *testing.F) {
	f.Add([]byte(`{"status":2,"result":{"/a/b:0:10.0.0.1":` + gseShapeEntry + `}}`))
	f.Add([]byte(`{"status":115,"result":{"/usr/local/gse/sbin/x:0:10.0.0.1":` + docShapeEntry + `}}`))
	f.Add([]byte(`{"status":2,"result":{"k":{"error_code":115,"content":null}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var r jobResult
		if json.Unmarshal(body, &r) != nil {
			return
		}
		for _, e := range r.Result {
			checkStatus(t, string(e.Content))
		}
	})
}

// FuzzParseContent: content parses or fails cleanly, never panics, and the
// judgement of its instances is consistent.
func FuzzParseContent(f *testing.F) {
	f.Add(`{"process":[{"procname":"a","instance":[{"pid":-1,"isAuto":0},{"pid":"12","isAuto":"1","version":3}]}]}`)
	f.Add(`{"value":[{"procName":"a","isAuto":"true","result":{}}]}`)
	f.Add(`"{\"process\":[]}"`)
	f.Add(``)
	f.Fuzz(func(t *testing.T, content string) { checkStatus(t, content) })
}

func checkStatus(t *testing.T, content string) {
	st, err := ParseContent(content)
	if err != nil {
		if len(st.Instances) != 0 || st.IsAuto != nil {
			t.Fatalf("error %v with a status %+v", err, st)
		}
		return
	}
	n := st.RunningInstances()
	if n > len(st.Instances) || st.Running() != (n > 0) || (st.PID() > 0) != st.Running() || (st.PID() <= 0 && st.PID() != -1) {
		t.Fatalf("inconsistent %+v: running %d pid %d", st, n, st.PID())
	}
}
