package simulator_test

import (
	"testing"
)

// A backup keeps each file's content beside it, or marks it absent; a
// restore puts the content back, or removes a file that was absent, and
// consumes the backup. Files a script does not name are left alone.
func TestFileBackupAndRestore(t *testing.T) {
	sim, srv := healthSim(t, 1)
	const conf, added, other = "/data/it's.conf", "/data/new.conf", "/data/other.conf"
	sim.JOBv3().SetFile(1, conf, []byte("old\n"))
	sim.JOBv3().SetFile(1, other, []byte("other\n"))
	backup := "# gse_service file backup\nbackup() { :; }\nbackup '/data/it'\\''s.conf' || exit 1\nbackup '/data/new.conf' || exit 1\n"
	if code, _ := runScript(t, srv, 1, backup); code != 0 {
		t.Fatalf("backup exited %d", code)
	}
	if b, ok := sim.JOBv3().File(1, conf+".gse-prev"); !ok || string(b) != "old\n" {
		t.Errorf("backup of %s: %q (present %t)", conf, b, ok)
	}
	if _, ok := sim.JOBv3().File(1, added+".gse-none"); !ok {
		t.Errorf("no absence marker for %s", added)
	}
	sim.JOBv3().SetFile(1, conf, []byte("new\n"))
	sim.JOBv3().SetFile(1, added, []byte("pushed\n"))
	sim.JOBv3().SetFile(1, other, []byte("changed\n"))
	restore := "# gse_service file restore\nrestore() { :; }\nrestore '/data/it'\\''s.conf' || exit 1\nrestore '/data/new.conf' || exit 1\n"
	if code, _ := runScript(t, srv, 1, restore); code != 0 {
		t.Fatalf("restore exited %d", code)
	}
	for full, want := range map[string]string{conf: "old\n", other: "changed\n"} {
		if b, _ := sim.JOBv3().File(1, full); string(b) != want {
			t.Errorf("%s after the restore: %q, want %q", full, b, want)
		}
	}
	for _, gone := range []string{added, conf + ".gse-prev", added + ".gse-none"} {
		if _, ok := sim.JOBv3().File(1, gone); ok {
			t.Errorf("%s left after the restore", gone)
		}
	}
}
