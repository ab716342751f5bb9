package simulator

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
)

// What a host does with a fast_execute_script script. JOB sends the script
// to the host's agent as a file named for its language (ScriptTypeEnum:
// 1 shell ".sh", 5 powershell ".ps1"; ScriptGseTaskStartCommand
// buildScriptFileName) and reports the host's exit code (exit_code of
// get_job_instance_status, EsbGetJobInstanceStatusV3ResourceImpl) and its
// output (batch_get_job_instance_ip_log). A shell script is for Linux or a
// Windows host with Cygwin, bat and ps1 for Windows (bk-job
// EsbProcessInfoDTO cmd_shell_ext): the simulator's Windows hosts
// (bk_os_type "2") have no Cygwin, and its Linux hosts no PowerShell.
//
// The simulator runs the provider's read of a file's SHA-256 (or MISSING) in
// each language and gse_service's TCP probe in shell (jobv3_health.go); a
// script SetScriptFails names fails as it says; any other script prints
// nothing and exits 0.

// Script languages (bk-job ScriptTypeEnum).
const (
	scriptShell      = 1
	scriptPowerShell = 5
)

// jobHostScriptFailed is ExecuteObjectTaskStatusEnum.SCRIPT_NOT_ZERO_EXIT_CODE.
const jobHostScriptFailed = 104

// shellFileVar is the shell read's file: f='...', a quote in the name
// closing the quoted part, escaped (\') and reopening it.
var shellFileVar = regexp.MustCompile(`(?m)^f=((?:'[^']*'|\\')+)$`)

// shellPipedHash is the hash tool's output piped to another command, whose
// exit status is then the pipeline's (POSIX sh: a pipeline's status is its
// last command's).
var shellPipedHash = regexp.MustCompile(`sha256sum[^|\n]*\|[^|]`)

// powerShellFile is the PowerShell read's file, as UTF-8 in Base64.
var powerShellFile = regexp.MustCompile(`FromBase64String\('([A-Za-z0-9+/=]*)'\)`)

// runScript runs script in language lang on h and returns its exit code and
// output; the hub's lock held. running is GSE's running processes by host,
// read once for the hosts of a job (runningByHost), which the TCP probe needs.
func (j *JOBv3) runScript(h *CMDBHost, lang int, script string, running func() map[procKey][]string) (int, string) {
	windows := h.OSType == "2"
	switch {
	case lang == scriptShell && windows:
		return 127, "'sh' is not recognized as an internal or external command (no Cygwin on this Windows host)\r\n"
	case lang == scriptPowerShell && !windows:
		return 127, "sh: 1: powershell: not found\n"
	}
	if r, ok := j.ruleFor(h, script); ok {
		return r.code, r.output
	}
	switch lang {
	case scriptShell:
		if code, out, ok := j.healthProbe(h, script, running); ok {
			return code, out
		}
		if j.runFileScript(h, script) {
			return 0, ""
		}
		return j.runShellRead(h, script)
	case scriptPowerShell:
		return j.runPowerShellRead(h, script)
	}
	return 0, ""
}

// runShellRead is the shell read on a Linux host: MISSING, the hash, or
// the shell's "not found" when the host lacks sha256sum (SetCommandMissing),
// with the tool's status 127 unless its output was piped on.
func (j *JOBv3) runShellRead(h *CMDBHost, script string) (int, string) {
	m := shellFileVar.FindStringSubmatch(script)
	if m == nil || !strings.Contains(script, "sha256sum") {
		return 0, ""
	}
	b, ok := j.files[h.ID][shellUnquote(m[1])]
	switch {
	case !ok:
		return 0, "MISSING\n"
	case j.missing[h.ID]["sha256sum"] && shellPipedHash.MatchString(script):
		return 0, "sh: 3: sha256sum: not found\n\n"
	case j.missing[h.ID]["sha256sum"]:
		return 127, "sh: 3: sha256sum: not found\n"
	}
	return 0, hexSum(b) + "\n"
}

// runPowerShellRead is the PowerShell read on a Windows host.
func (j *JOBv3) runPowerShellRead(h *CMDBHost, script string) (int, string) {
	m := powerShellFile.FindStringSubmatch(script)
	if m == nil {
		return 0, ""
	}
	name, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		return 1, "Exception calling \"FromBase64String\": invalid Base64\r\n"
	}
	b, ok := j.files[h.ID][string(name)]
	if !ok {
		return 0, "MISSING\r\n"
	}
	return 0, hexSum(b) + "\r\n"
}

// shellUnquote is the value of a word of single-quoted parts and \' escapes.
func shellUnquote(word string) string {
	var b strings.Builder
	for i := 0; i < len(word); i++ {
		switch word[i] {
		case '\'':
			end := strings.IndexByte(word[i+1:], '\'')
			b.WriteString(word[i+1 : i+1+end])
			i += end + 1
		case '\\':
			i++
			b.WriteByte(word[i])
		}
	}
	return b.String()
}

func hexSum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// jacksonMaxString is the longest string JOB's JSON reader takes: Jackson's
// StreamReadConstraints.DEFAULT_MAX_STRING_LEN (jackson-core 2.15.1 and
// later, which bk-job's src/backend/build.gradle pins), checked as
// "length > max"; a longer one fails the request body
// (HttpMessageNotReadableException), which bk-job's
// EsbExceptionControllerAdvice answers BAD_REQUEST, 1240003.
const jacksonMaxString = 20_000_000

// tooLongString reports whether the JSON raw holds a string (value or
// name) over jacksonMaxString characters (UTF-16 units, as Java counts).
func tooLongString(raw []byte) bool {
	if len(raw) <= jacksonMaxString {
		return false // a string that long needs a body longer still
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if s, ok := tok.(string); ok && utf16Len(s) > jacksonMaxString {
			return true
		}
	}
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}
