package simulator

import (
	"regexp"
	"slices"
	"strings"
)

// What a Linux host does with gse_service's backup and restore of config
// files (the provider's health.FilesScript): the shell runs, for each file,
// one line "backup '<path>' || exit 1" (or restore), whose function, in
// POSIX sh with cp -p, mv -f and rm -f, keeps the previous content beside
// the file as {file}.gse-prev, or marks that there was none with an empty
// {file}.gse-none; a restore puts the previous content back (consuming the
// backup) or, after none, removes the file. The files are the ones JOB
// pushed (File, SetFile), so a test sees the backups and what a restore
// left.

// The scripts' first lines, as the provider writes them.
const (
	fileBackupMarker  = "# gse_service file backup\n"
	fileRestoreMarker = "# gse_service file restore\n"
)

// fileScriptLine is one file's line of either script.
var fileScriptLine = regexp.MustCompile(`(?m)^(backup|restore) ((?:'[^']*'|\\')+) \|\| exit 1$`)

// runFileScript runs a backup or restore on h, which exits 0 printing
// nothing (SetScriptFails fails one, as any script); false for another
// script. The hub's lock held.
func (j *JOBv3) runFileScript(h *CMDBHost, script string) bool {
	if !strings.HasPrefix(script, fileBackupMarker) && !strings.HasPrefix(script, fileRestoreMarker) {
		return false
	}
	for _, m := range fileScriptLine.FindAllStringSubmatch(script, -1) {
		full := shellUnquote(m[2])
		files := j.files[h.ID]
		prev, hadPrev := files[full+".gse-prev"]
		_, hadNone := files[full+".gse-none"]
		switch b, exists := files[full]; {
		case m[1] == "backup" && exists:
			j.putFile(h.ID, full+".gse-prev", slices.Clone(b))
			delete(j.files[h.ID], full+".gse-none")
		case m[1] == "backup":
			delete(files, full+".gse-prev")
			j.putFile(h.ID, full+".gse-none", []byte{})
		case hadPrev:
			j.putFile(h.ID, full, prev)
			delete(j.files[h.ID], full+".gse-prev")
		case hadNone:
			delete(files, full)
			delete(files, full+".gse-none")
		}
	}
	return true
}
