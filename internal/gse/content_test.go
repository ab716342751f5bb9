package gse

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The two shapes of a status answer: GSE's (content a string, numeric times,
// isAuto) and the get_proc_result documentation's (content an object,
// startTime "", stime/utime strings, no isAuto).
const (
	gseShapeEntry = `{"error_code":0,"error_msg":"success","content":"{\"process\":[{\"procname\":\"nginx\",\"instance\":[{\"pid\":4242,\"isAuto\":true,\"version\":\"1.2\",\"cpuUsage\":0.5,\"startTime\":1700000000}]}]}"}`
	docShapeEntry = `{"error_code":0,"error_msg":"success","content":{"process":[{"instance":[{"cpuUsageAve":0,"stat":"","phyMemUsage":0,"cmdline":"","freeVMem":"0","pid":-1,"threadCount":0,"cpuUsage":0,"elapsedTime":0,"processName":"bk_gse_unifyTlogc","diskSize":-1,"stime":"0","startTime":"","usePhyMem":0,"utime":"0"}],"procname":"bk_gse_unifyTlogc"}],"ip":"10.0.0.1","utctime":"2018-04-04 09:56:20","utctime2":"2018-04-04 01:56:20","timezone":8}}`
)

func TestParseContentShapes(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		entry   string
		running bool
		pid     int64
		hosted  *bool
		version string
	}{
		"gse string":    {gseShapeEntry, true, 4242, boolPtr(true), "1.2"},
		"documentation": {docShapeEntry, false, -1, nil, ""},
	} {
		var e jobResultEntry
		if err := json.Unmarshal([]byte(tc.entry), &e); err != nil {
			t.Fatalf("%s: entry: %v", name, err)
		}
		st, err := ParseContent(string(e.Content))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st.Running() != tc.running || st.PID() != tc.pid || st.Version() != tc.version || !sameFlag(st.Hosted(), tc.hosted) {
			t.Errorf("%s: running %v pid %d version %q hosted %v", name, st.Running(), st.PID(), st.Version(), st.Hosted())
		}
	}
}

func TestParseContentTolerance(t *testing.T) {
	t.Parallel()
	for content, wantPID := range map[string]int64{
		`{"process":[{"instance":[{"pid":"31","startTime":"","stime":"1","utime":"2"}]}]}`: 31,
		`{"process":[{"instance":[{"pid":31.0,"version":2}]}]}`:                            31,
		`{"process":[{"instance":[{"pid":"","isAuto":""}]}]}`:                              -1,
		`"{\"process\":[{\"instance\":[{\"pid\":7}]}]}"`:                                   7, // encoded twice
		`{"process":[{"instance":[{"isAuto":"yes"}]}],"extra":{"a":[1,2]}}`:                -1,
	} {
		st, err := ParseContent(content)
		if err != nil || st.PID() != wantPID {
			t.Errorf("%s: pid %d err %v, want %d", content, st.PID(), err, wantPID)
		}
	}
	// Refusals say what is wrong in JSON's terms, never the decoder's Go types.
	for bad, want := range map[string]string{
		"{not json":                    "result content is not JSON (invalid character 'n' looking for beginning of object key string, at byte 2)",
		`[1,2]`:                        "result content is not the documented JSON: the content is a list where an object belongs",
		`{"process":{"instance":1}}`:   "result content is not the documented JSON: process holds an object where a list belongs",
		`{"process":[{"instance":1}]}`: "result content is not the documented JSON: process.instance holds a number where a list belongs",
		`{"value":"a"}`:                "result content is not the documented JSON: value holds a string where a list belongs",
	} {
		_, err := ParseContent(bad)
		msg := fmt.Sprint(err)
		if !strings.HasPrefix(msg, want+"; the documented content is {\"process\":[{\"instance\":[{\"pid\":1234,") || strings.Contains(msg, "Go ") || strings.Contains(msg, "struct") {
			t.Errorf("%s: error %q, want %q and the documented shape", bad, msg, want)
		}
	}
}

// Every instance counts: running when any has a pid, hosted when any says so.
func TestStatusJudgesEveryInstance(t *testing.T) {
	t.Parallel()
	yes, no := boolPtr(true), boolPtr(false)
	for name, tc := range map[string]struct {
		st      Status
		running int
		pid     int64
		hosted  *bool
		version string
	}{
		"first down, second up": {Status{Instances: []Instance{{PID: -1, IsAuto: no}, {PID: 88, IsAuto: yes, Version: "2"}}}, 1, 88, yes, "2"},
		"all down":              {Status{Instances: []Instance{{PID: -1, IsAuto: no, Version: "1"}, {PID: 0, IsAuto: no}}}, 0, -1, no, "1"},
		"both up":               {Status{Instances: []Instance{{PID: 5}, {PID: 6}}}, 2, 5, nil, ""},
		"no instance, control":  {Status{IsAuto: yes}, 0, -1, yes, ""},
		"nothing said":          {Status{}, 0, -1, nil, ""},
	} {
		if tc.st.RunningInstances() != tc.running || tc.st.Running() != (tc.running > 0) || tc.st.PID() != tc.pid ||
			!sameFlag(tc.st.Hosted(), tc.hosted) || tc.st.Version() != tc.version {
			t.Errorf("%s: running %d pid %d hosted %v version %q", name, tc.st.RunningInstances(), tc.st.PID(), tc.st.Hosted(), tc.st.Version())
		}
	}
}

func boolPtr(b bool) *bool { return &b }

func sameFlag(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
