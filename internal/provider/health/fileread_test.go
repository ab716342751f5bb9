package health

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
		sum, missing, read := ParseRead(tc.out)
		if sum != tc.sum || missing != tc.missing || read != tc.read {
			t.Errorf("ParseRead(%q) = %q, %v, %v; want %q, %v, %v", tc.out, sum, missing, read, tc.sum, tc.missing, tc.read)
		}
	}
}

// The shell read run by this machine's sh: a file whose path holds a quote
// and a space prints its SHA-256 as ParseRead reads it, one that is not
// there prints MISSING.
func TestShellReadOnThisHost(t *testing.T) {
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum on this machine")
	}
	full := filepath.Join(t.TempDir(), "it's a.conf")
	if err := os.WriteFile(full, []byte("listen 80;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte("listen 80;\n"))
	out, code := runSh(t, shellRead(full))
	if sum, _, ok := ParseRead(out); code != 0 || !ok || sum != hex.EncodeToString(h[:]) {
		t.Errorf("read of %s: exit %d, output %q", full, code, out)
	}
	out, code = runSh(t, shellRead(full+".gone"))
	if _, missing, ok := ParseRead(out); code != 0 || !ok || !missing {
		t.Errorf("read of a missing file: exit %d, output %q", code, out)
	}
}
