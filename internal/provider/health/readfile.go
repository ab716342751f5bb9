package health

import (
	"context"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// readTimeout is how long the read of a file may run on a host.
const readTimeout = time.Minute

// ReadFile reads the file at full on the hosts of targets as the JOB
// execution account account: one fast_execute_script task (ReadScript),
// each host once, and returns by Target.Key what its host holds. A host JOB
// did not reach is not Reached; a host where the read failed, or printed
// neither a SHA-256 nor MISSING, makes err a *ReadError naming each such
// host with its output. JOB takes the hosts as Check does.
func ReadFile(ctx context.Context, c *gse.Client, scope gse.JobScope, full, account string, targets []Target) (map[string]FileState, error) {
	out := map[string]FileState{}
	if len(targets) == 0 {
		return out, nil
	}
	what := "the read of " + full
	byID, err := Addressing(targets, what)
	if err != nil {
		return nil, err
	}
	sc := ReadScript(full)
	sc.Name, sc.Account, sc.TimeoutSecs = "terraform: gse_service config file read", account, int64(readTimeout/time.Second)
	t := task{what: what, sc: sc, byID: byID, hosts: map[string]Target{}, logAll: true}
	for _, tg := range targets {
		if k := HostKey(tg, byID); t.hosts[k].Key == "" {
			t.hosts[k] = tg
		}
	}
	if err := t.run(ctx, c, scope); err != nil {
		return nil, err
	}
	re := &ReadError{File: full, Account: account, Total: len(t.hosts)}
	failed := map[string]bool{}
	for _, tg := range targets {
		k := HostKey(tg, byID)
		r, reported := t.found[k]
		st, why := JudgeRead(r.res, reported, r.log)
		if why != "" && !failed[k] {
			failed[k] = true
			re.Add(hostName(tg), why, r.log)
		}
		out[tg.Key] = st
	}
	if re.Failed() {
		return nil, re
	}
	return out, nil
}
