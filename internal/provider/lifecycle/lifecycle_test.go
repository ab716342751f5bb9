package lifecycle

import (
	"errors"
	"slices"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
)

// mayExist keeps every host a failed create may have reached: all of them
// when the outcome is unknown, none a request never reached or a code
// refused, and only those done when the request was refused as a whole.
func TestMayExist(t *testing.T) {
	t.Parallel()
	a, b, c, d := gse.Host{IP: "10.0.0.1"}, gse.Host{IP: "10.0.0.2"}, gse.Host{IP: "10.0.0.3"}, gse.Host{IP: "10.0.0.4"}
	targets := []gse.Host{a, b, c, d}
	refused850 := func(code int) bool { return code == 850 }
	for name, tc := range map[string]struct {
		err  error
		done []gse.Host
		want []gse.Host
	}{
		"unknown outcome": {err: errors.New("connection reset"), want: targets},
		"per host": {err: &gse.HostsError{NotActed: []gse.Host{a}, Failures: []gse.HostFailure{{Host: b, Code: 850}, {Host: c, Code: 1}}},
			want: []gse.Host{c, d}},
		"agents down": {err: &hosts.AgentsDownError{}, done: []gse.Host{d}, want: []gse.Host{d}},
	} {
		if got := mayExist(targets, tc.done, tc.err, refused850); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}

// A start proves running and hosted, but of a one-shot process only hosted:
// it may have run and exited already.
func TestProvenOneShot(t *testing.T) {
	t.Parallel()
	h := gse.Host{IP: "10.0.0.1"}
	var pr Proven
	if _, touched := pr.Of(h); touched {
		t.Fatal("touched before any task")
	}
	pr.note([]gse.Host{h}, gse.OpStart, false)
	if f, _ := pr.Of(h); f.Running == nil || !*f.Running || f.Managed == nil || !*f.Managed {
		t.Fatalf("after a start: %+v", f)
	}
	pr.note([]gse.Host{h}, gse.OpStart, true)
	if f, touched := pr.Of(h); !touched || f.Running != nil || f.Managed == nil || !*f.Managed {
		t.Fatalf("after a one-shot start: %+v, touched %v", f, touched)
	}
}
