package jobmanagedprocess

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

func TestParseJobImportID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]jobImport{
		"biz:2//data/nginx/bin/nginx@0:10.0.0.1,1:2001:db8::1?pid_path=/p.pid": {scopeType: "biz", scopeID: "2", setupPath: "/data/nginx/bin",
			procName: "nginx", pidPath: "/p.pid", ips: []gse.JobIP{{IP: "10.0.0.1"}, {BkCloudID: 1, IP: "2001:db8::1"}}},
		"biz_set:9/C:\\app@2/app@0:10.0.0.1?contact=a%40b.com&pid_path=C%3A%5Capp%5Capp.pid&value_key=k&account=svc": {scopeType: "biz_set", scopeID: "9",
			setupPath: "C:\\app@2", procName: "app", contact: "a@b.com", pidPath: "C:\\app\\app.pid", valueKey: "k", account: "svc", ips: []gse.JobIP{{IP: "10.0.0.1"}}},
		"biz:2//opt/bin/x@0:10.0.0.1?value_key=k&contact=a@b&pid_path=/p": {scopeType: "biz", scopeID: "2", setupPath: "/opt/bin", procName: "x",
			contact: "a@b", pidPath: "/p", valueKey: "k", ips: []gse.JobIP{{IP: "10.0.0.1"}}},
	} {
		got, err := parseJobImportID(id)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v %v\nwant %+v", id, got, err, want)
		}
	}
	for id, want := range map[string]string{
		"biz:2//data/nginx/bin/nginx?pid_path=/p":                              "missing '@'",
		"biz:2//data/nginx/bin/nginx@0:10.0.0.1?contact=ops":                   "missing ?pid_path",
		"biz:2//data/nginx/bin/nginx@0:10.0.0.1,0:::ffff:10.0.0.1?pid_path=/p": "listed twice",
		"biz:2//data/nginx/bin/nginx@0:fe80::1%eth0?pid_path=/p":               "without zone",
		"biz:2//data/nginx/bin/nginx@-1:10.0.0.1?pid_path=/p":                  "is not bk_cloud_id:ip",
		"biz:2//data/nginx/bin/nginx@0:10.0.0.1?pid_path=/p&proc_owner=x":      `unknown query parameter "proc_owner"`,
		"biz:x//data/nginx/bin/nginx@0:10.0.0.1?pid_path=/p":                   "is not biz:<id>",
		"biz:2/nginx/@0:10.0.0.1?pid_path=/p":                                  "is not setup_path/proc_name",
		"biz:2//data/nginx/bin/nginx@0:10.0.0.1?pid_path=%zz":                  "not URL-encoded",
	} {
		if _, err := parseJobImportID(id); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", id, err, want)
		}
	}
}

// IP diffing for an update: by host identity, so a respelled IP is kept, not removed and added.
func TestJobIPDiff(t *testing.T) {
	t.Parallel()
	prior := []gse.JobIP{{IP: "10.0.0.1"}, {IP: "2001:DB8::1"}, {BkCloudID: 1, IP: "10.0.0.2"}}
	plan := []gse.JobIP{{IP: "::ffff:10.0.0.1"}, {IP: "2001:db8::1"}, {IP: "10.0.0.3"}}
	removed, added, kept := plumbing.DiffBy(prior, plan, gse.JobIP.Key)
	if !reflect.DeepEqual(removed, []gse.JobIP{{BkCloudID: 1, IP: "10.0.0.2"}}) || !reflect.DeepEqual(added, []gse.JobIP{{IP: "10.0.0.3"}}) ||
		!reflect.DeepEqual(kept, []gse.JobIP{{IP: "::ffff:10.0.0.1"}, {IP: "2001:db8::1"}}) {
		t.Errorf("removed %v added %v kept %v", removed, added, kept)
	}
}

// What may exist after a failed register: the IPs that succeeded and those
// still pending at the deadline (115 means "processing"), not those that failed.
func TestMayExist(t *testing.T) {
	t.Parallel()
	out := &gse.JobOutcome{IPs: []gse.JobIPOutcome{
		{IP: gse.JobIP{IP: "10.0.0.1"}, Op: gse.OpHost},
		{IP: gse.JobIP{IP: "10.0.0.2"}, Op: gse.OpHost, HostResult: gse.HostResult{ErrorCode: 65535}},
	}}
	err := &gse.HostsError{Failures: []gse.HostFailure{{Host: gse.Host{IP: "10.0.0.2"}, Code: 65535}}, Pending: []gse.Host{{IP: "10.0.0.3", BkCloudID: 1}}}
	got := jobMayExist(out, fmt.Errorf("wrapped: %w", err))
	if want := []gse.JobIP{{IP: "10.0.0.1"}, {BkCloudID: 1, IP: "10.0.0.3"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := jobMayExist(nil, errors.New("connection refused")); len(got) != 0 {
		t.Errorf("nothing submitted: %v", got)
	}
}
