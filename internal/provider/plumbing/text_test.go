package plumbing

import "testing"

// One of a noun is singular, every other count plural.
func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 hosts", 1: "1 host", 2: "2 hosts"} {
		if got := HostCount(n); got != want {
			t.Errorf("HostCount(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Count(1, "process instance"); got != "1 process instance" {
		t.Errorf("Count(1) = %q", got)
	}
}
