package health

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Backups of config files on their hosts, before a push, so that a failed
// release can put the previous files back without the state holding any
// content: as GSEKit backs up each config through JOB before releasing it
// (bk-process-config-manager apps/gsekit/scripts/backup_cfg.sh, run by its
// pipeline's config backup component) and bk-bscp's client keeps MaxBackups
// of each file. One backup per file, beside it:
// {file}.gse-prev holds the previous content; {file}.gse-none says there was
// none, so a restore removes the pushed file. A restore consumes the backup.
// Both are shell (cp -p, mv -f, rm -f: POSIX); on Windows JOB runs shell
// only under Cygwin, and a host without it fails them as JOB reports it.

// FileOp is what Files does to the files: Backup or Restore.
type FileOp int

const (
	Backup FileOp = iota
	Restore
)

// Markers of the scripts: the first line of each, by which a reader of a
// JOB log (or the simulator) tells them apart.
const (
	BackupMarker  = "# gse_service file backup"
	RestoreMarker = "# gse_service file restore"
)

// backupTimeout is how long a backup or restore may run: it copies files.
const backupTimeout = time.Minute

// FilesScript is the shell script that backs up (or restores) each of
// paths, in order, and exits 1 at the first it cannot.
func FilesScript(op FileOp, paths []string) string {
	var b strings.Builder
	switch op {
	case Backup:
		b.WriteString(BackupMarker + "\n" +
			`backup() { if [ -e "$1" ]; then cp -p "$1" "$1.gse-prev" && rm -f "$1.gse-none"; else rm -f "$1.gse-prev" && : > "$1.gse-none"; fi; }` + "\n")
	case Restore:
		b.WriteString(RestoreMarker + "\n" +
			`restore() { if [ -e "$1.gse-prev" ]; then mv -f "$1.gse-prev" "$1"; elif [ -e "$1.gse-none" ]; then rm -f "$1" "$1.gse-none"; fi; }` + "\n")
	}
	verb := map[FileOp]string{Backup: "backup", Restore: "restore"}[op]
	for _, p := range paths {
		fmt.Fprintf(&b, "%s %s || exit 1\n", verb, shellQuote(p))
	}
	return b.String()
}

// shellQuote is s as one shell word: in single quotes, a quote in it
// closing them, escaped (\') and reopening them.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Files backs up (or restores) on each target's host the files paths names
// for it (by Target.Key), as account: one fast_execute_script task per
// distinct list of paths, the hosts with the same list together. It returns
// why each target's host failed, by Target.Key; err is for a task that could
// not run at all.
func Files(ctx context.Context, c *gse.Client, scope gse.JobScope, op FileOp, account string, targets []Target, paths map[string][]string) (map[string]string, error) {
	if len(targets) == 0 {
		return map[string]string{}, nil
	}
	what := map[FileOp]string{Backup: "the backup of the files", Restore: "the restore of the files"}[op]
	byID, err := Addressing(targets, what)
	if err != nil {
		return nil, err
	}
	byList := map[string]*task{}
	for _, t := range targets {
		list := slices.Compact(slices.Sorted(slices.Values(paths[t.Key])))
		if len(list) == 0 {
			continue
		}
		id := strings.Join(list, "\x00")
		tk := byList[id]
		if tk == nil {
			tk = &task{what: what, byID: byID, hosts: map[string]Target{},
				sc: gse.Script{Name: "terraform: gse_service " + what, Content: FilesScript(op, list), Account: account, TimeoutSecs: int64(backupTimeout / time.Second)}}
			byList[id] = tk
		}
		tk.hosts[HostKey(t, byID)] = t
	}
	ts := make([]task, 0, len(byList))
	for _, id := range slices.Sorted(maps.Keys(byList)) {
		ts = append(ts, *byList[id])
	}
	return runJudged(ctx, c, scope, ts, targets)
}
