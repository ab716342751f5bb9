package health

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// ReadScript is the JOB script that prints the SHA-256 of the file at full
// in lower-case hex, or MISSING when there is no such file, and that fails
// with the hash tool's status when the tool fails. Its language is the one
// of the hosts full is for: PowerShell for a Windows path (JOB runs a shell
// script on Windows only under Cygwin: bk-job EsbProcessInfoDTO
// cmd_shell_ext), shell otherwise.
func ReadScript(full string) gse.Script {
	if WindowsPath(full) {
		return gse.Script{Language: gse.ScriptPowerShell, Content: powerShellRead(full)}
	}
	return gse.Script{Language: gse.ScriptShell, Content: shellRead(full)}
}

// shellRead reads the file from standard input, so that sha256sum prints no
// file name (which it would escape), and exits with its status: a pipe into
// cut would exit with cut's.
func shellRead(full string) string {
	return "f='" + strings.ReplaceAll(full, "'", `'\''`) + "'\n" +
		"if [ ! -f \"$f\" ]; then echo MISSING; exit 0; fi\n" +
		"h=$(sha256sum < \"$f\") || exit $?\n" +
		"printf '%s\\n' \"${h%% *}\"\n"
}

// powerShellRead needs PowerShell 2.0 (.NET's SHA256; Get-FileHash came in
// 4.0). The path goes in Base64: the script is then ASCII whatever the
// host's code page, and no character of the path is a quote to PowerShell.
func powerShellRead(full string) string {
	return "$ErrorActionPreference = 'Stop'\r\n" +
		"$f = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('" + base64.StdEncoding.EncodeToString([]byte(full)) + "'))\r\n" +
		"if (-not [IO.File]::Exists($f)) { 'MISSING'; exit 0 }\r\n" +
		"try {\r\n" +
		"  $s = [IO.File]::OpenRead($f)\r\n" +
		"  try { $h = [Security.Cryptography.SHA256]::Create().ComputeHash($s) } finally { $s.Close() }\r\n" +
		"} catch { [Console]::Error.WriteLine($_.Exception.Message); exit 1 }\r\n" +
		"-join ($h | ForEach-Object { $_.ToString('x2') })\r\n"
}

var sha256Hex = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)

// ParseRead reads a host's output of the read: its last line that is not
// blank (a login banner of the account may come before it), a SHA-256
// (lower-cased) or MISSING (missing); ok is false for anything else.
func ParseRead(out string) (sum string, missing, ok bool) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	switch {
	case last == "MISSING":
		return "", true, true
	case sha256Hex.MatchString(last):
		return strings.ToLower(last), false, true
	}
	return "", false, false
}

// FileState is what the read found of a file on one host: nothing when JOB
// did not reach it (Reached false), else the file Missing or its SHA256.
type FileState struct {
	Reached bool
	Missing bool
	SHA256  string
}

// JudgeRead is one host's read from its JOB result (reported false when
// JOB gave none for the host) and output: its state, or why the read
// failed there ("" when it did not): the script's exit code, or output
// that is neither a SHA-256 nor MISSING.
func JudgeRead(res gse.JobHostTask, reported bool, log string) (FileState, string) {
	switch {
	case reported && res.ScriptRan():
		return FileState{}, fmt.Sprintf("exit code %d (JOB host status %d)", res.ExitCode, res.Status)
	case !reported || !res.OK():
		return FileState{}, ""
	}
	sum, missing, ok := ParseRead(log)
	if !ok {
		return FileState{}, "printed neither a SHA-256 nor MISSING"
	}
	return FileState{Reached: true, Missing: missing, SHA256: sum}, ""
}

// NeedsLog reports whether JudgeRead needs a host's output: where the read
// ran, whether it succeeded or failed.
func NeedsLog(res gse.JobHostTask) bool { return res.OK() || res.ScriptRan() }

// JobFileName is the name JOB writes a file under: trimmed as Java's
// String.trim trims, every character up to U+0020 (bk-job
// FilePathUtils.getPureFileName, which push_config_file applies through
// ConfigFileUtil.saveConfigFileToLocal).
func JobFileName(name string) string {
	return strings.TrimFunc(name, func(r rune) bool { return r <= ' ' })
}

// WindowsPath reports a directory JOB treats as a Windows one: any that does
// not start with / (FilePathUtils.standardizedDirPath).
func WindowsPath(dir string) bool { return !strings.HasPrefix(dir, "/") }

// FilePath is where push_config_file writes file name in directory dir: the
// name as JOB trims it (JobFileName), joined with the directory's separator.
func FilePath(dir, name string) string {
	name = JobFileName(name)
	if strings.Contains(dir, `\`) {
		return strings.TrimRight(dir, `\`) + `\` + name
	}
	return strings.TrimRight(dir, "/") + "/" + name
}
