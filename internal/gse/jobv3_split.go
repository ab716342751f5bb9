package gse

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"
)

// A script on more hosts than JOB runs in one job is run as several jobs,
// each on at most jobScriptTargetsMax hosts, which the caller reads as one
// by the ids ExecuteScript returned (the first job's): WaitJob waits for
// every job and joins their results, ScriptLogs reads each host's output
// from the job that ran on it.

// jobScriptTargetsMax is the most targets of one script job: bk-job's
// job.execute.limit.script-task.max-target-server, 50000 unless the
// installation configures it (service-job-execute config/JobExecuteConfig.java);
// TaskExecuteServiceImpl.checkStepInstanceAtomicTasksLimit refuses more
// with 1244022 before it saves the job. An installation configured lower
// names its limit in that refusal, and the rest is split by it.
const jobScriptTargetsMax = 50000

// scriptPart is one job of a script run as several.
type scriptPart struct {
	job, step int64
	hostIDs   []int64 // the hosts of its results, once WaitJob has read them
}

// scriptParts are the scripts run as several jobs, by the first job's id.
// An entry lives until ScriptLogs has read its output.
type scriptParts struct {
	mu    sync.Mutex
	byJob map[int64][]scriptPart
}

func (p *scriptParts) put(parts []scriptPart) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byJob == nil {
		p.byJob = map[int64][]scriptPart{}
	}
	p.byJob[parts[0].job] = parts
}

func (p *scriptParts) get(job int64) ([]scriptPart, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	parts, ok := p.byJob[job]
	return slices.Clone(parts), ok
}

// learned records the hosts of each part's results.
func (p *scriptParts) learned(job int64, parts []scriptPart) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.byJob[job]; ok {
		p.byJob[job] = parts
	}
}

func (p *scriptParts) drop(job int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.byJob, job)
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

// waitParts waits for every job of the script started as job and joins
// their results: finished, a success when every job succeeded, the steps
// of them all.
func (s *JobService) waitParts(ctx context.Context, scope JobScope, job int64, parts []scriptPart) (*JobStatus, error) {
	out := &JobStatus{Finished: true}
	out.Job.Status = JobSuccess
	for i, p := range parts {
		st, err := s.waitJob(ctx, scope, p.job)
		if err != nil {
			return nil, err
		}
		if out.Job.Status == JobSuccess {
			out.Job.Status = st.Job.Status
		}
		out.Steps = append(out.Steps, st.Steps...)
		parts[i].hostIDs = stepHosts(st)
	}
	s.client.scripts.learned(job, parts)
	return out, nil
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

// partLogs reads the output of hostIDs from the jobs of the script started
// as job, each host from the job that ran on it (read from its results when
// WaitJob has not).
func (s *JobService) partLogs(ctx context.Context, scope JobScope, job int64, parts []scriptPart, hostIDs []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(hostIDs))
	for _, p := range parts {
		if p.hostIDs == nil {
			st, err := s.JobInstanceStatus(ctx, scope, p.job, true)
			if err != nil {
				return nil, err
			}
			p.hostIDs = stepHosts(st)
		}
		ran := make(map[int64]bool, len(p.hostIDs))
		for _, id := range p.hostIDs {
			ran[id] = true
		}
		mine := slices.DeleteFunc(slices.Clone(hostIDs), func(id int64) bool { return !ran[id] })
		if err := s.scriptLogs(ctx, scope, p.job, p.step, mine, out); err != nil {
			return nil, err
		}
	}
	s.client.scripts.drop(job)
	return out, nil
}
