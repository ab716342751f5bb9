package simulator_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// push_config_file as bk-job answers it: content whose Base64 is longer than
// the 20,000,000 characters of JOB's JSON reader is a Bad Request (1240003);
// only empty content is refused (1241002), whitespace is written; the file
// name is trimmed; GET /_sim/job/files/{bk_host_id} lists what JOB wrote.
func TestJobV3PushConfigFile(t *testing.T) {
	sim := simulator.New(simulator.Options{CMDBHosts: 3})
	srv := httptest.NewServer(sim)
	defer srv.Close()
	push := func(name string, content []byte) int {
		t.Helper()
		body := fmt.Sprintf(`{"bk_scope_type":"biz","bk_scope_id":"2","account_alias":"root","file_target_path":"/data/conf",`+
			`"file_list":[{"file_name":%q,"content":%q}],"target_server":{"host_id_list":[1]}}`, name, base64.StdEncoding.EncodeToString(content))
		st, code := post(t, srv, "/api/c/compapi/v2/jobv3/push_config_file/", "app", body)
		if st != http.StatusOK {
			t.Fatalf("push_config_file: HTTP %d", st)
		}
		return code
	}
	for _, tc := range []struct {
		what    string
		size    int
		content []byte
		want    int
	}{
		{what: "Base64 of 20,000,000 characters", size: 15_000_000, want: 0},
		{what: "Base64 of 20,000,004 characters", size: 15_000_001, want: 1240003},
		{what: "empty", content: []byte{}, want: 1241002},
		{what: "whitespace", content: []byte(" \n"), want: 0},
	} {
		content := tc.content
		if content == nil {
			content = bytes.Repeat([]byte{'x'}, tc.size)
		}
		if code := push("big.conf", content); code != tc.want {
			t.Errorf("%s: code %d, want %d", tc.what, code, tc.want)
		}
	}
	if code := push(" \tnginx.conf ", []byte("worker_processes 2;\n")); code != 0 {
		t.Fatalf("push of nginx.conf: code %d", code)
	}
	resp, err := http.Get(srv.URL + "/_sim/job/files/1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var files []simulator.JobFile
	if err := json.NewDecoder(resp.Body).Decode(&files); err != nil {
		t.Fatal(err)
	}
	sum := func(b []byte) string {
		h := sha256.Sum256(b)
		return hex.EncodeToString(h[:])
	}
	want := []simulator.JobFile{
		{Path: "/data/conf/big.conf", Size: 2, SHA256: sum([]byte(" \n"))},
		{Path: "/data/conf/nginx.conf", Size: 20, SHA256: sum([]byte("worker_processes 2;\n"))},
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("/_sim/job/files/1: %+v, want %+v", files, want)
	}
}

// A JOB job runs for the task latency after its submit, however often it
// is read (with no latency it is finished at its second read).
func TestJobV3JobLastsTheTaskLatency(t *testing.T) {
	for _, tc := range []struct {
		latency time.Duration
		want    []bool
	}{{time.Hour, []bool{false, false, false}}, {0, []bool{false, true, true}}} {
		sim := simulator.New(simulator.Options{CMDBHosts: 1, TaskLatency: tc.latency})
		srv := httptest.NewServer(sim)
		var job struct {
			Data struct {
				ID int64 `json:"job_instance_id"`
			}
		}
		jobv3(t, srv, "push_config_file", `{"bk_scope_type":"biz","bk_scope_id":"2","account_alias":"root","file_target_path":"/data/conf",`+
			`"file_list":[{"file_name":"a.conf","content":"YQo="}],"target_server":{"host_id_list":[1]}}`, &job)
		var got []bool
		for range tc.want {
			var st struct{ Data struct{ Finished bool } }
			jobv3(t, srv, "get_job_instance_status", fmt.Sprintf(`{"bk_scope_type":"biz","bk_scope_id":"2","job_instance_id":%d}`, job.Data.ID), &st)
			got = append(got, st.Data.Finished)
		}
		srv.Close()
		if job.Data.ID == 0 || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("latency %v: job %d finished at each read %v, want %v", tc.latency, job.Data.ID, got, tc.want)
		}
	}
}
