package gse

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
)

// A script on more hosts than JOB runs in one job is run as several jobs,
// each on at most jobScriptTargetsMax hosts, which the caller reads as one
// through the ScriptRun ExecuteScript returned: WaitScript waits for every
// job and joins their results, ScriptLogs reads each host's output from the
// job that ran on it.

// jobScriptTargetsMax is the most targets of one script job: bk-job's
// job.execute.limit.script-task.max-target-server, 50000 unless the
// installation configures it (service-job-execute config/JobExecuteConfig.java);
// TaskExecuteServiceImpl.checkStepInstanceAtomicTasksLimit refuses more
// with 1244022 before it saves the job. An installation configured lower
// names its limit in that refusal, and the rest is split by it.
const jobScriptTargetsMax = 50000

// ScriptRun is a script ExecuteScript started: its jobs, one unless its
// hosts were more than one job takes.
type ScriptRun struct {
	parts []scriptPart
}

// scriptPart is one job of a script run.
type scriptPart struct {
	job, step int64
	hostIDs   []int64 // the hosts of its results, once WaitScript has read them
}

// WaitScript waits for every job of run and joins their results: finished,
// a success when every job succeeded, the steps of them all.
func (s *JobService) WaitScript(ctx context.Context, scope JobScope, run *ScriptRun) (*JobStatus, error) {
	out := &JobStatus{Finished: true}
	out.Job.Status = JobSuccess
	for i, p := range run.parts {
		st, err := s.waitJob(ctx, scope, p.job, true)
		if err != nil {
			return nil, err
		}
		if len(run.parts) == 1 {
			return st, nil
		}
		if out.Job.Status == JobSuccess {
			out.Job.Status = st.Job.Status
		}
		out.Steps = append(out.Steps, st.Steps...)
		run.parts[i].hostIDs = stepHosts(st)
	}
	return out, nil
}

// len is how many hosts t targets.
func (t JobTargets) len() int { return max(len(t.HostIDs), len(t.IPs)) }

// cut is the first n hosts of t and the rest, in the form t is sent in.
func (t JobTargets) cut(n int) (JobTargets, JobTargets) {
	if len(t.HostIDs) > 0 {
		n = min(n, len(t.HostIDs))
		return JobTargets{HostIDs: t.HostIDs[:n]}, JobTargets{HostIDs: t.HostIDs[n:]}
	}
	n = min(n, len(t.IPs))
	return JobTargets{IPs: t.IPs[:n]}, JobTargets{IPs: t.IPs[n:]}
}

// executeParts starts the jobs running sc on the targets, one per
// jobScriptTargetsMax hosts, or per the lower limit a 1244022 names.
func (s *JobService) executeParts(ctx context.Context, scope JobScope, sc Script, to JobTargets) ([]scriptPart, error) {
	limit := jobScriptTargetsMax
	var parts []scriptPart
	for rest := to; ; {
		part, next := rest.cut(limit)
		job, step, err := s.executeScript(ctx, scope, sc, part)
		if n, ok := scriptTargetsLimit(err); ok && n < part.len() {
			limit = n
			continue
		}
		if err != nil {
			return nil, startedBefore(err, parts)
		}
		parts = append(parts, scriptPart{job: job, step: step})
		if next.len() == 0 {
			return parts, nil
		}
		rest = next
	}
}

// scriptTargetsLimitText is the end of 1244022's message in every language
// bk-job writes it: "... exceeds the limit: 50000", "...超过限制：50000".
var scriptTargetsLimitText = regexp.MustCompile(`(\d+)\s*$`)

// scriptTargetsLimit is the limit a 1244022 refusal names.
func scriptTargetsLimit(err error) (int, bool) {
	var ae *APIError
	if !errors.As(err, &ae) || ae.Code != CodeJobScriptTargets {
		return 0, false
	}
	m := scriptTargetsLimitText.FindStringSubmatch(ae.Message)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil && n > 0
}

// startedBefore is err, naming the jobs already started on the first hosts:
// they run their course.
func startedBefore(err error, parts []scriptPart) error {
	if len(parts) == 0 {
		return err
	}
	ids := make([]int64, len(parts))
	for i, p := range parts {
		ids[i] = p.job
	}
	return fmt.Errorf("%w (JOB jobs %v already run the script on the hosts before)", err, ids)
}

// stepHosts are the bk_host_ids of a job's results.
func stepHosts(st *JobStatus) []int64 {
	var ids []int64
	for _, step := range st.Steps {
		for _, h := range step.Hosts {
			ids = append(ids, h.HostID)
		}
	}
	return ids
}

// partLogs reads the output of hostIDs into out from the jobs of run, each
// host from the job that ran on it (read from its results when WaitScript
// has not).
func (s *JobService) partLogs(ctx context.Context, scope JobScope, run *ScriptRun, hostIDs []int64, out map[int64]string) error {
	for _, p := range run.parts {
		if p.hostIDs == nil {
			st, err := s.JobInstanceStatus(ctx, scope, p.job, true)
			if err != nil {
				return err
			}
			p.hostIDs = stepHosts(st)
		}
		ran := make(map[int64]bool, len(p.hostIDs))
		for _, id := range p.hostIDs {
			ran[id] = true
		}
		mine := slices.DeleteFunc(slices.Clone(hostIDs), func(id int64) bool { return !ran[id] })
		if err := s.scriptLogs(ctx, scope, p.job, p.step, mine, out); err != nil {
			return err
		}
	}
	return nil
}
