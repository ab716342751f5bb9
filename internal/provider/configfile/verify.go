package configfile

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// verify reads each host's file with one JOB script (readScript). A host
// whose agent JOB did not reach is unreachable; one whose read failed, or
// printed neither a SHA-256 nor MISSING, is a *readError naming it and what
// it printed.
func (r *configFileResource) verify(ctx context.Context, m *configFileModel) (map[string]hostFile, error) {
	sc := readScript(m.full())
	sc.Account, sc.TimeoutSecs = m.Account.ValueString(), 60
	var run *gse.ScriptRun
	ts := m.targets()
	results, err := r.run(ctx, m, ts, func(to gse.JobTargets) (waitFor, error) {
		var err error
		run, err = r.client.Job.ExecuteScript(ctx, m.scope(), sc, to)
		return func(ctx context.Context) (*gse.JobStatus, error) { return r.client.Job.WaitScript(ctx, m.scope(), run) }, err
	})
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, res := range results {
		if res.OK() || res.ScriptRan() {
			ids = append(ids, res.HostID)
		}
	}
	logs := map[int64]string{}
	if len(ids) > 0 {
		if logs, err = r.client.Job.ScriptLogs(ctx, m.scope(), run, ids); err != nil {
			return nil, err
		}
	}
	want := m.SHA256.ValueString()
	out := map[string]hostFile{}
	re := &readError{file: m.full(), account: m.Account.ValueString(), total: len(ts)}
	for _, t := range ts {
		res, ok := results[t.key]
		log := logs[res.HostID]
		got, missing, parsed := parseRead(log)
		switch {
		case ok && res.ScriptRan():
			re.add(t, fmt.Sprintf("exit code %d (JOB host status %d)", res.ExitCode, res.Status), log)
		case !ok || !res.OK():
			out[t.key] = hostFile{Status: types.StringValue(statusUnreachable), SHA256: types.StringNull()}
		case !parsed:
			re.add(t, "printed neither a SHA-256 nor MISSING", log)
		case missing:
			out[t.key] = hostFile{Status: types.StringValue(statusMissing), SHA256: types.StringNull()}
		case got == want:
			out[t.key] = hostFile{Status: types.StringValue(statusMatch), SHA256: types.StringValue(got)}
		default:
			out[t.key] = hostFile{Status: types.StringValue(statusDiffers), SHA256: types.StringValue(got)}
		}
	}
	if len(re.failures) > 0 {
		return nil, re
	}
	return out, nil
}

// keepAgreeing is read with the prior entry of each host where the read
// found what the state says (pushed or match, with this sum): a refresh
// after a push reads back what the apply wrote.
func keepAgreeing(read, prior map[string]hostFile, sum string) {
	held := byHost(prior)
	for k, h := range read {
		if p, ok := held[hostIdentity(k)]; ok && h.Status.ValueString() == statusMatch && p.settled(sum) {
			read[k] = p
		}
	}
}

// readError names the hosts whose read of the file failed, with what each printed.
type readError struct {
	file, account string
	total         int
	failures      []string
}

// maxOutput is how much of a host's output an error quotes.
const maxOutput = 300

func (e *readError) add(t target, what, output string) {
	output = strings.TrimSpace(output)
	if len(output) > maxOutput {
		output = output[:maxOutput] + "..."
	}
	e.failures = append(e.failures, fmt.Sprintf("%s: %s, output %s", t, what, strconv.Quote(output)))
}

func (e *readError) Error() string {
	return fmt.Sprintf("fast_execute_script could not read %s on %d of %s:\n  - %s", e.file, len(e.failures), plumbing.HostCount(e.total), strings.Join(e.failures, "\n  - "))
}

// advice says what the user can do about the hosts named.
func (e *readError) advice() string {
	tool := "sha256sum"
	if windowsPath(e.file) {
		tool = "PowerShell"
	}
	return fmt.Sprintf("The read runs %s as the JOB account %q on each host and prints the file's SHA-256 or MISSING. "+
		"Make it work on the hosts named (install %s, give the account read access to the file), or take them out of the resource's hosts. "+
		"To stop reading the files, set verify = false and apply once with -refresh=false (a refresh reads them while the state has verify on).", tool, e.account, tool)
}
