package health

import (
	"strings"
	"testing"
)

// Each file is one line of the script, quoted as one shell word whatever it
// holds, after the function the marker names.
func TestFilesScript(t *testing.T) {
	for op, want := range map[FileOp][]string{
		Backup:  {BackupMarker + "\nbackup() {", "\nbackup '/data/a b/it'\\''s.conf' || exit 1\nbackup '/data/x' || exit 1\n"},
		Restore: {RestoreMarker + "\nrestore() {", "\nrestore '/data/a b/it'\\''s.conf' || exit 1\nrestore '/data/x' || exit 1\n"},
	} {
		got := FilesScript(op, []string{"/data/a b/it's.conf", "/data/x"})
		if !strings.HasPrefix(got, want[0]) || !strings.HasSuffix(got, want[1]) {
			t.Errorf("FilesScript(%d):\n%s", op, got)
		}
	}
}
