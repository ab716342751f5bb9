package health

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// run starts the task's script on its hosts, waits for it, and reads the
// output of each host where it ran and failed (of each where it ran, for
// logAll): a batch found healthy costs no read of its logs.
func (t *task) run(ctx context.Context, c *gse.Client, scope gse.JobScope) error {
	run, err := c.Job.ExecuteScript(ctx, scope, t.sc, JobTargets(t.hosts, t.byID))
	if err != nil {
		return fmt.Errorf("%s could not start: %w", t.what, err)
	}
	st, err := c.Job.WaitScript(ctx, scope, run)
	if err != nil {
		return fmt.Errorf("%s did not finish: %w", t.what, err)
	}
	t.found = map[string]hostResult{}
	var ids []int64
	for _, step := range st.Steps {
		for _, h := range step.Hosts {
			t.found[ResultKey(h, t.byID)] = hostResult{res: h}
			if h.ScriptRan() || (t.logAll && h.OK()) {
				ids = append(ids, h.HostID)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	logs, err := c.Job.ScriptLogs(ctx, scope, run, ids)
	if err != nil {
		return fmt.Errorf("the output of %s could not be read: %w", t.what, err)
	}
	for k, r := range t.found {
		r.log = logs[r.res.HostID]
		t.found[k] = r
	}
	return nil
}

// judge is why tg failed the task (Check names the host before it), or ""
// when it passed or the task is not about it (another host, or a target
// without ports in the TCP probe).
func (t *task) judge(tg Target) string {
	k := HostKey(tg, t.byID)
	if _, ok := t.hosts[k]; !ok || (t.ports != nil && len(tg.Ports) == 0) {
		return ""
	}
	r, ok := t.found[k]
	switch {
	case !ok:
		return "JOB reported no result of " + t.what
	case r.res.OK():
		return ""
	case !r.res.ScriptRan():
		return fmt.Sprintf("%s did not run: JOB host status %d%s", t.what, r.res.Status, gse.JobHostAdvice(r.res.Status))
	}
	if missing, printed := notListening(r.log); t.ports != nil && printed {
		var own []string
		for _, p := range slices.Compact(slices.Sorted(slices.Values(tg.Ports))) {
			if missing[p] {
				own = append(own, strconv.Itoa(p))
			}
		}
		if len(own) == 0 {
			return ""
		}
		noun := "port"
		if len(own) > 1 {
			noun = "ports"
		}
		return fmt.Sprintf("TCP %s %s not listening (the TCP probe's exit code %d)", noun, strings.Join(own, ", "), r.res.ExitCode)
	}
	return fmt.Sprintf("%s exited %d (JOB host status %d), output %s", t.what, r.res.ExitCode, r.res.Status, tail(r.log))
}

// Of a host's output, a reason quotes its last tailLines lines that are not
// blank, at most tailBytes of them.
const (
	tailLines = 5
	tailBytes = 300
)

// tail is the end of a host's output, quoted.
func tail(out string) string {
	lines := strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' })
	lines = slices.DeleteFunc(lines, func(l string) bool { return strings.TrimSpace(l) == "" })
	s := strings.Join(lines[max(0, len(lines)-tailLines):], "\n")
	if len(s) > tailBytes {
		cut := len(s) - tailBytes
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		s = "..." + s[cut:]
	}
	return strconv.Quote(s)
}
