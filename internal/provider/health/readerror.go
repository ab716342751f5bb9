package health

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// ReadError names the hosts where the read of a file (ReadScript) failed,
// with what each printed: File read as the JOB execution account Account on
// Total hosts.
type ReadError struct {
	File, Account string
	Total         int
	failures      []string
}

// maxOutput is how much of a host's output an error quotes.
const maxOutput = 300

// Add names a host where the read failed, why (JudgeRead) and its output.
func (e *ReadError) Add(host, why, output string) {
	output = strings.TrimSpace(output)
	if len(output) > maxOutput {
		output = output[:maxOutput] + "..."
	}
	e.failures = append(e.failures, fmt.Sprintf("%s: %s, output %s", host, why, strconv.Quote(output)))
}

// Failed reports whether a host was added.
func (e *ReadError) Failed() bool { return len(e.failures) > 0 }

func (e *ReadError) Error() string {
	return fmt.Sprintf("fast_execute_script could not read %s on %d of %s:\n  - %s", e.File, len(e.failures), plumbing.HostCount(e.Total), strings.Join(e.failures, "\n  - "))
}

// Advice says what the user can do about the hosts named.
func (e *ReadError) Advice() string {
	tool := "sha256sum"
	if WindowsPath(e.File) {
		tool = "PowerShell"
	}
	return fmt.Sprintf("The read runs %s as the JOB account %q on each host and prints the file's SHA-256 or MISSING. "+
		"Make it work on the hosts named (install %s, give the account read access to the file), or take them out of the resource's hosts. "+
		"To stop reading the files, set verify = false and apply once with -refresh=false (a refresh reads them while the state has verify on).", tool, e.Account, tool)
}
