package simulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// The JOB family (/api/c/compapi/v2/job/...): operate_proc (seed 000),
// operate_process (seed 001), manage_proc (seed 003) and get_proc_result. Its
// API names carry the prefix "job/" in Calls and faults. A JOB process is
// kept per scope ("biz:1") and index: value_key, else {setup_path}/{proc_name}.

type jobRequest struct {
	BkBizID      *int64    `json:"bk_biz_id"`
	ScopeType    string    `json:"bk_scope_type"`
	ScopeID      string    `json:"bk_scope_id"`
	OpType       *int      `json:"op_type"`
	ProcessInfos []jobProc `json:"process_infos"`
	TaskID       string    `json:"bk_gse_taskid"`
}

type jobProc struct {
	SetupPath   string     `json:"setup_path"`
	ProcName    string     `json:"proc_name"`
	PidPath     string     `json:"pid_path"`
	ProcOwner   string     `json:"proc_owner"`
	ValueKey    string     `json:"value_key"`
	CmdShellExt string     `json:"cmd_shell_ext"`
	Type        *int       `json:"type"`
	CycleTime   *int       `json:"cycle_time"`
	CPULmt      *int       `json:"cpu_lmt"`
	MemLmt      *int       `json:"mem_lmt"`
	IPList      []wireHost `json:"ip_list"`
	raw         json.RawMessage
}

func (p jobProc) index() string {
	if p.ValueKey != "" {
		return p.ValueKey
	}
	return p.SetupPath + "/" + p.ProcName
}

// JobIndex is the index of a JOB process: value_key, else {setup_path}/{proc_name}.
func JobIndex(setupPath, procName, valueKey string) string {
	return jobProc{SetupPath: setupPath, ProcName: procName, ValueKey: valueKey}.index()
}

func (s *Server) serveJOB(w http.ResponseWriter, r *http.Request) {
	s.serve(w, r, "job/", s.dispatchJob)
}

func (s *Server) dispatchJob(api string, raw []byte) (any, *apiError) {
	var req jobRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, badParams("the body does not match %s: %v", api, err)
	}
	var items []json.RawMessage
	var whole struct {
		ProcessInfos []json.RawMessage `json:"process_infos"`
	}
	if json.Unmarshal(raw, &whole) == nil {
		items = whole.ProcessInfos
	}
	for i := range req.ProcessInfos {
		req.ProcessInfos[i].raw = items[i]
	}
	scope, err := req.scope(api)
	if err != nil {
		return nil, err
	}
	switch api {
	case "manage_proc", "operate_proc", "operate_process":
		if err := validateJob(api, &req); err != nil {
			return nil, err
		}
		return s.submitJob(api, scope, &req), nil
	case "get_proc_result":
		return s.pollJob(scope, req.TaskID)
	}
	return nil, badParams("unknown JOB API %q", api)
}

// scope is "biz:<id>" or "biz_set:<id>". manage_proc takes bk_scope_type and
// bk_scope_id only; the others take bk_biz_id, or a scope.
func (r *jobRequest) scope(api string) (string, *apiError) {
	switch {
	case r.ScopeType != "":
		if r.ScopeType != "biz" && r.ScopeType != "biz_set" {
			return "", badParams("bk_scope_type must be biz or biz_set, got %q", r.ScopeType)
		}
		if _, err := strconv.ParseInt(r.ScopeID, 10, 64); err != nil {
			return "", badParams("bk_scope_id must be a numeric string, got %q", r.ScopeID)
		}
		return r.ScopeType + ":" + r.ScopeID, nil
	case api == "manage_proc":
		return "", badParams("bk_scope_type and bk_scope_id are required")
	case r.BkBizID != nil:
		return fmt.Sprintf("biz:%d", *r.BkBizID), nil
	}
	return "", badParams("bk_biz_id (or bk_scope_type and bk_scope_id) is required")
}

func validateJob(api string, r *jobRequest) *apiError {
	if r.OpType == nil {
		return badParams("op_type is required")
	}
	if api == "manage_proc" && *r.OpType != 1 && *r.OpType != 2 {
		return badParams("manage_proc op_type must be 1 (register) or 2 (unregister), got %d", *r.OpType)
	}
	if len(r.ProcessInfos) == 0 {
		return badParams("process_infos must not be empty")
	}
	for _, p := range r.ProcessInfos {
		switch {
		case p.ProcName == "":
			return badParams("process_infos[].proc_name is required")
		case api == "manage_proc" && p.ProcOwner == "":
			return badParams("process_infos[].proc_owner is required")
		case api != "manage_proc" && (p.SetupPath == "" || p.PidPath == ""):
			return badParams("process_infos[].setup_path and pid_path are required")
		case api == "manage_proc" && *r.OpType == 1 && (p.Type == nil || *p.Type == 0) && p.CycleTime == nil:
			return badParams("process_infos[].cycle_time is required when type is 0 (periodic)")
		case p.CmdShellExt != "" && (api != "operate_proc" || (p.CmdShellExt != "sh" && p.CmdShellExt != "bat" && p.CmdShellExt != "ps1")):
			return badParams("cmd_shell_ext is operate_proc's, one of sh, bat or ps1; got %q for %s", p.CmdShellExt, api)
		case len(p.IPList) == 0:
			return badParams("process_infos[].ip_list must not be empty")
		}
		for _, n := range []*int{p.CPULmt, p.MemLmt} {
			if n != nil && (*n < 0 || *n > 100) {
				return badParams("cpu_lmt and mem_lmt must be 0 to 100")
			}
		}
	}
	return nil
}

// submitJob applies an operation to every IP of every process and queues its results.
func (s *Server) submitJob(api, scope string, r *jobRequest) any {
	t := &task{job: true, latency: s.opts.TaskPolls, lasts: s.opts.TaskLatency, start: time.Now(), results: map[string]hostResult{}}
	op := *r.OpType
	for _, p := range r.ProcessInfos {
		for _, h := range p.IPList {
			key := fmt.Sprintf("%s/%s:%d:%s", p.SetupPath, p.ProcName, h.BkCloudID, h.IP)
			if f := s.takeHostFault("job/"+api, h.IP, op); f != nil {
				t.results[key] = hostResult{ErrorCode: f.Code, ErrorMsg: f.Message}
				continue
			}
			t.results[key] = s.operateJob(api, scope, p, h, op)
		}
	}
	id := s.nextID("GSETASK")
	s.tasks[id] = t
	return map[string]string{"bk_gse_taskid": id}
}

// operateJob runs op on a JOB process. JOB sends the whole definition, so the
// agent can act on a process it has not seen: it is created as needed.
func (s *Server) operateJob(api, scope string, p jobProc, h wireHost, op int) hostResult {
	k := keyOf(scope, p.index(), h.BkCloudID, h.IP)
	proc, known := s.jobProcs[k]
	if api == "manage_proc" { // 1 register hosting, 2 unregister
		if op == 2 {
			delete(s.jobProcs, k)
			return hostResult{ErrorMsg: "success"}
		}
		op = 3
	}
	if !known {
		if op != 0 && op != 3 && op != 7 {
			if op == 2 {
				return hostResult{ErrorMsg: "success", Content: statusContent(&Process{ProcName: p.ProcName, PID: -1})}
			}
			return hostResult{ErrorCode: hostNotRunning, ErrorMsg: "process is not running"}
		}
		proc = &Process{Namespace: scope, Name: p.index(), IP: h.IP, BkCloudID: h.BkCloudID, PID: -1, RegisterTime: time.Now().Unix()}
		s.jobProcs[k] = proc
	}
	proc.ProcName, proc.SetupPath = p.ProcName, p.SetupPath
	if op == 3 || op == 0 {
		proc.Spec = append(json.RawMessage(nil), p.raw...)
	}
	autoType := 0
	if p.Type != nil {
		autoType = *p.Type
	}
	return s.apply(proc, op, autoType)
}

func (s *Server) pollJob(scope, id string) (any, *apiError) {
	t, ok := s.tasks[id]
	if !ok || !t.job {
		return nil, badParams("task %q not found in %s", id, scope)
	}
	results, done, err := t.answer()
	if err != nil {
		return nil, err
	}
	status := 1 // running
	if done {
		status = 2
	}
	return map[string]any{"status": status, "result": results}, nil
}

// JobProcesses returns a copy of every process hosted through JOB.
func (s *Server) JobProcesses() []Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot(s.jobProcs)
}

// JobProcess returns a JOB process on one host; index is value_key, else {setup_path}/{proc_name}.
func (s *Server) JobProcess(scope, index string, cloud int64, ip string) (Process, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.jobProcs[keyOf(scope, index, cloud, ip)]
	if !ok {
		return Process{}, false
	}
	return *p, true
}

// JobDrift applies an out-of-band change to a JOB process on one host.
func (s *Server) JobDrift(action, scope, index string, cloud int64, ip string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return drift(s.jobProcs, action, keyOf(scope, index, cloud, ip))
}
