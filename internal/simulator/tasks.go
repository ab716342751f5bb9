package simulator

import (
	"slices"
	"time"
)

// The task engine: GSE's operate APIs submit tasks whose effects happen at
// once and whose results polls reveal after the configured latency. JOB's
// process APIs run through GSE, so their tasks are GSE's: one engine, one
// task log, one count of open tasks for both.

// codeNotQueued is what a poll of a task not yet queued answers.
const codeNotQueued = 1000115

// TaskPolls is the latency of a task, counted in polls: first Unqueued polls
// answer 1000115, then Pending polls leave the hosts out (the first) or at 115,
// then the results come.
type TaskPolls struct{ Unqueued, Pending int }

// TaskRecord is one operate task as submitted: which API (JOB ones prefixed
// "job/"), how many operate items (operate_proc_multi holds several) and
// hosts it carried, each target, and how many earlier tasks had not yet been
// polled to completion when it was submitted (Open: 0 when tasks never overlap).
type TaskRecord struct {
	API     string       `json:"api"`
	TaskID  string       `json:"task_id"`
	Items   int          `json:"items"`
	Hosts   int          `json:"hosts"`
	Targets []TaskTarget `json:"targets"`
	Open    int          `json:"open"`
}

// TaskTarget is one host of a task: the process (for JOB, setup_path/proc_name),
// op_type as sent (JOB passes it to GSE unchanged) and host.
type TaskTarget struct {
	Process   string `json:"process"`
	Op        int    `json:"op_type"`
	BkCloudID int64  `json:"bk_cloud_id"`
	IP        string `json:"ip"`
}

// tasks are the tasks submitted, by id and in order.
type tasks struct {
	byID map[string]*task
	log  []TaskRecord
	open int // tasks submitted and not yet polled to completion
}

// task is a submitted operation. Its effects happen at submit; polls reveal
// the results after the configured latency.
type task struct {
	v1      bool // keyed bk_cloud_id:bk_supplier_id:ip:namespace:name, else bk_cloud_id:ip:namespace:name
	job     bool // a JOB task, keyed {setup_path}/{proc_name}:{bk_cloud_id}:{ip}
	polls   int
	latency TaskPolls
	results map[string]hostResult
	open    bool            // counted in tasks.open until a poll returns it done
	missing map[string]bool // keys left out of every answer (a HostFault with Missing)
	start   time.Time
	lasts   time.Duration // time-based latency, when set
}

// Where a task stands at a poll.
const (
	phaseUnqueued = iota // 1000115
	phaseNoHosts         // the hosts left out
	phasePending         // every host at 115
	phaseDone            // the results
)

// SetTaskPolls changes the latency of tasks submitted from now on.
func (s *Server) SetTaskPolls(p TaskPolls) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.TaskPolls = p
}

// Tasks returns every GSE operate task submitted so far (JOB's among them), in order.
func (s *Server) Tasks() []TaskRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tasks.log)
}

// newTask is a task of the latency set now, with no results yet.
func (s *Server) newTask() *task {
	return &task{latency: s.opts.TaskPolls, lasts: s.opts.TaskLatency, start: time.Now(), results: map[string]hostResult{}, missing: map[string]bool{}}
}

// logTask files a submitted task under a new id and records it in the task log.
func (s *Server) logTask(t *task, rec TaskRecord) string {
	rec.TaskID, rec.Open = s.nextID("GSETASK"), s.tasks.open
	t.open = true
	s.tasks.open++
	s.tasks.byID[rec.TaskID] = t
	s.tasks.log = append(s.tasks.log, rec)
	return rec.TaskID
}

// closeTask takes a task polled to completion out of the open count.
func (s *Server) closeTask(t *task, done bool) {
	if done && t.open {
		t.open = false
		s.tasks.open--
	}
}

// phase says where a task stands at this poll.
func (t *task) phase() int {
	if t.lasts > 0 {
		switch age := time.Since(t.start); {
		case age < t.lasts/3:
			return phaseUnqueued
		case age < t.lasts:
			return phasePending
		}
		return phaseDone
	}
	switch {
	case t.polls <= t.latency.Unqueued:
		return phaseUnqueued
	case t.polls == t.latency.Unqueued+1 && t.latency.Pending > 0:
		return phaseNoHosts
	case t.polls <= t.latency.Unqueued+t.latency.Pending:
		return phasePending
	}
	return phaseDone
}

// answer is what one poll of the task sees: 1000115 while it is unqueued,
// then no hosts, then every host at 115, then the results (done).
func (t *task) answer() (map[string]hostResult, bool, *apiError) {
	t.polls++
	switch t.phase() {
	case phaseUnqueued:
		return nil, false, &apiError{codeNotQueued, "task is not queued yet"}
	case phaseNoHosts:
		return map[string]hostResult{}, false, nil // GSE sometimes leaves hosts out for a while
	case phasePending:
		out := map[string]hostResult{}
		for k := range t.results {
			if !t.missing[k] {
				out[k] = hostResult{ErrorCode: hostPending, ErrorMsg: "processing"}
			}
		}
		return out, false, nil
	}
	if len(t.missing) == 0 {
		return t.results, true, nil
	}
	out := map[string]hostResult{}
	for k, r := range t.results {
		if !t.missing[k] {
			out[k] = r
		}
	}
	return out, false, nil
}
