package configfile_test

import (
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/configfile"
)

// A host's output of the read is its last line that is not blank: a SHA-256
// (in either case) or MISSING; anything else, an error of the tool, an empty
// line a pipe left, is no reading.
func TestParseRead(t *testing.T) {
	const h = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	for _, tc := range []struct {
		out, sum      string
		missing, read bool
	}{
		{out: "MISSING\n", missing: true, read: true},
		{out: h + "\n", sum: h, read: true},
		{out: "Last login: Mon\r\n" + strings.ToUpper(h) + "\r\n", sum: h, read: true},
		{out: "sh: 3: sha256sum: not found\n\n"},
		{out: ""},
		{out: h + "  -\n"},
		{out: h[:63] + "\n"},
	} {
		sum, missing, read := configfile.ParseRead(tc.out)
		if sum != tc.sum || missing != tc.missing || read != tc.read {
			t.Errorf("ParseRead(%q) = %q, %v, %v; want %q, %v, %v", tc.out, sum, missing, read, tc.sum, tc.missing, tc.read)
		}
	}
}

// An account alias JOB lacks (1244003) is told what to set, not to start an
// agent, nor pointed at a host_status that never reached the state.
func TestPushAdviceAccountMissing(t *testing.T) {
	err := &gse.APIError{API: "push_config_file", Code: 1244003, Message: "Account [nginx] does not exist"}
	got := configfile.PushAdvice(err, "nginx", false)
	if !strings.Contains(got, `no execution account with the alias "nginx" in biz 2`) || strings.Contains(got, "agent") || strings.Contains(got, "host_status") {
		t.Errorf("advice for 1244003: %s", got)
	}
	if got := configfile.PushAdvice(err, "nginx", true); strings.Contains(got, "agent") {
		t.Errorf("advice for 1244003 after a batch was sent: %s", got)
	}
}
