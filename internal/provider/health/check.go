package health

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Target is one instance to check: its key (Check's result is by it), its
// host, the host's CMDB id, and the TCP ports it must listen on (Ports).
type Target struct {
	Key      string
	Host     gse.Host
	BkHostID int64
	Ports    []int
}

// Script is the user's health script: shell content run as the JOB
// execution account (alias) Account, given Timeout to finish (a minute when
// zero).
type Script struct {
	Content string
	Account string
	Timeout time.Duration
}

// Checks are what Check runs: the TCP probe (TCP) as the JOB execution
// account ProbeAccount (root when empty: the probe needs no privilege), and
// the user's Script when it is set.
type Checks struct {
	TCP          bool
	ProbeAccount string
	Script       *Script
}

// probeTimeout is how long the TCP probe may run: it reads two files.
const probeTimeout = time.Minute

// Check runs the checks of one batch and returns, by Target.Key, why each
// unhealthy target failed (its host, what failed: the ports not listening,
// the script's exit code, and the last lines of output JOB logged);
// healthy targets are absent. It runs once: a caller that waits for health
// calls it again until its deadline. err is for a check that could not run
// at all (JOB refused the task, or a poll failed).
//
// The TCP probe (probeScript) is one fast_execute_script task per distinct
// set of ports, the ports of a host being those of its targets: hosts with
// the same ports share a task. A target is unhealthy when one of its own
// ports does not listen on its host. The user's script is one task over
// every host of the batch: a host holding several targets runs it once, and
// its exit code applies to each of them; 0 is healthy.
//
// JOB takes the hosts by bk_host_id when every target has one, else by IPv4
// address and cloud; a target with neither is an error. Both checks are
// shell scripts: on Windows JOB runs shell only under Cygwin, and a Windows
// host without it fails them with what JOB reported.
func Check(ctx context.Context, c *gse.Client, scope gse.JobScope, targets []Target, checks Checks) (map[string]string, error) {
	if len(targets) == 0 {
		return map[string]string{}, nil
	}
	byID, err := Addressing(targets, "the health checks")
	if err != nil {
		return nil, err
	}
	var ts []task
	if checks.TCP {
		ts = probeTasks(targets, byID, cmp.Or(checks.ProbeAccount, "root"))
	}
	if checks.Script != nil {
		ts = append(ts, scriptTask(targets, byID, checks.Script))
	}
	return runJudged(ctx, c, scope, ts, targets)
}

// runJudged runs the tasks at once and returns why each target failed them,
// by Target.Key: its host named, then what each task it failed found; err is
// for a task that could not run at all.
func runJudged(ctx context.Context, c *gse.Client, scope gse.JobScope, ts []task, targets []Target) (map[string]string, error) {
	g, gctx := errgroup.WithContext(ctx)
	for i := range ts {
		g.Go(func() error { return ts[i].run(gctx, c, scope) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, tg := range targets {
		var whys []string
		for _, t := range ts {
			if why := t.judge(tg); why != "" {
				whys = append(whys, why)
			}
		}
		if len(whys) > 0 {
			out[tg.Key] = hostName(tg) + ": " + strings.Join(whys, "; ")
		}
	}
	return out, nil
}

// hostName names a target's host for the user: as the configuration gives
// it, and its bk_host_id when known.
func hostName(t Target) string {
	switch {
	case t.Host == (gse.Host{}):
		return "bk_host_id " + strconv.FormatInt(t.BkHostID, 10)
	case t.BkHostID != 0:
		return t.Host.String() + " [bk_host_id " + strconv.FormatInt(t.BkHostID, 10) + "]"
	}
	return t.Host.String()
}

// task is one fast_execute_script run of a check on some of the batch's
// hosts: what it runs, on which hosts (by hostKey), and what it found.
type task struct {
	what  string // names the check in a reason: "the TCP probe", "the health script"
	sc    gse.Script
	byID  bool
	hosts map[string]Target // a target of each host, by hostKey
	// ports is each host's ports the probe checks (nil for the script).
	ports map[string][]int
	found map[string]hostResult // by hostKey, once run
	// logAll reads every host's output where the script ran (the read of a
	// file prints its result); a check reads only a failed host's.
	logAll bool
}

// hostResult is one host's result of a task.
type hostResult struct {
	res gse.JobHostTask
	log string
}

// probeTasks are the TCP probe's tasks: one per distinct set of ports of a
// host (the ports of its targets), hosts with the same set together.
func probeTasks(targets []Target, byID bool, account string) []task {
	ports := map[string][]int{}
	first := map[string]Target{}
	for _, t := range targets {
		k := HostKey(t, byID)
		if _, seen := first[k]; !seen {
			first[k] = t
		}
		ports[k] = append(ports[k], t.Ports...)
	}
	bySet := map[string]*task{}
	var order []string
	for _, k := range slices.Sorted(maps.Keys(ports)) {
		set := slices.Compact(slices.Sorted(slices.Values(ports[k])))
		if len(set) == 0 {
			continue
		}
		id := fmt.Sprint(set)
		t, ok := bySet[id]
		if !ok {
			t = &task{what: "the TCP probe", byID: byID, hosts: map[string]Target{}, ports: map[string][]int{},
				sc: gse.Script{Name: "terraform: gse_service tcp probe", Content: probeScript(set), Account: account, TimeoutSecs: int64(probeTimeout / time.Second)}}
			bySet[id] = t
			order = append(order, id)
		}
		t.hosts[k], t.ports[k] = first[k], set
	}
	out := make([]task, len(order))
	for i, id := range order {
		out[i] = *bySet[id]
	}
	return out
}

// scriptTask is the user's script on every host of the batch, once a host.
func scriptTask(targets []Target, byID bool, s *Script) task {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	t := task{what: "the health script", byID: byID, hosts: map[string]Target{},
		sc: gse.Script{Name: "terraform: gse_service health script", Content: s.Content, Account: s.Account, TimeoutSecs: int64((timeout + time.Second - 1) / time.Second)}}
	for _, tg := range targets {
		if k := HostKey(tg, byID); t.hosts[k].Key == "" {
			t.hosts[k] = tg
		}
	}
	return t
}
