package status

import (
	"errors"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// The drift judgement: only an answer that says "not hosted" is drift.
func TestStillHosted(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	ok := func(st gse.Status) gse.JobIPOutcome { return gse.JobIPOutcome{Op: gse.OpStatus, Status: st} }
	for name, tc := range map[string]struct {
		o        gse.JobIPOutcome
		answered bool
		hosted   bool
		status   string
	}{
		"hosted and running": {ok(gse.Status{Instances: []gse.Instance{{PID: -1, IsAuto: &no}, {PID: 9, IsAuto: &yes}}}), true, true, "running"},
		"unhosted":           {ok(gse.Status{Instances: []gse.Instance{{PID: -1, IsAuto: &no}}}), true, false, "stopped"},
		"does not say":       {ok(gse.Status{Instances: []gse.Instance{{PID: 9}}}), true, true, "running"},
		"no answer":          {gse.JobIPOutcome{}, false, true, "error (GSE code 115)"},
		"agent offline":      {gse.JobIPOutcome{Op: gse.OpStatus, HostResult: gse.HostResult{ErrorCode: 117}}, true, true, "error (GSE code 117)"},
		"unreadable content": {gse.JobIPOutcome{Op: gse.OpStatus, ContentErr: errors.New("bad")}, true, true, "error (unreadable content)"},
	} {
		if got := StillHosted(tc.o, tc.answered); got != tc.hosted {
			t.Errorf("%s: hosted %v, want %v", name, got, tc.hosted)
		}
		if got := JobIPOf(tc.o, tc.answered).Status; got != tc.status {
			t.Errorf("%s: status %q, want %q", name, got, tc.status)
		}
	}
}
