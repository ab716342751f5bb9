package simulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// The JOB family (/api/c/compapi/v2/job/...): operate_proc,
// operate_process, manage_proc and get_proc_result. Its
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
	InstanceNum *int       `json:"instance_num"`
	MemLmt      *int       `json:"mem_lmt"`
	IPList      []wireHost `json:"ip_list"`
	raw         json.RawMessage
}

// JobContentShape is how JOB status answers are written.
type JobContentShape int

const (
	// JobContentGSE: content is a JSON string with numeric times and isAuto, as GSE writes it.
	JobContentGSE JobContentShape = iota
	// JobContentDoc: content is a JSON object, startTime is "", stime and utime
	// are strings and isAuto is absent, as the public get_proc_result documentation shows it.
	JobContentDoc
	// JobContentStrings: as JobContentGSE, with the documentation's string-typed times.
	JobContentStrings
)

// jobKnobs are the JOB-only test knobs of a Server.
type jobKnobs struct {
	shape JobContentShape
	down  map[procKey]int // leading instances that are not running
}

// SetJobContentShape sets how status answers are written from now on.
func (s *Server) SetJobContentShape(shape JobContentShape) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.job.shape = shape
}

// JobInstancesDown makes the first n instances of a JOB process report no pid
// in status answers; its other instances (instance_num) keep running.
func (s *Server) JobInstancesDown(scope, index string, cloud int64, ip string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.job.down == nil {
		s.job.down = map[procKey]int{}
	}
	s.job.down[keyOf(scope, index, cloud, ip)] = n
}

// jobStatusContent is a status answer for p, one instance per instance_num.
func (s *Server) jobStatusContent(k procKey, p *Process, def jobProc) string {
	n := 1
	if def.InstanceNum != nil && *def.InstanceNum > 1 {
		n = *def.InstanceNum
	}
	var instances []map[string]any
	for i := range n {
		pid := int64(-1)
		if p.Running && i >= s.job.down[k] {
			pid = p.PID + int64(i)
		}
		in := map[string]any{"pid": pid, "version": p.Version, "processName": p.ProcName, "cpuUsage": 0.5, "phyMemUsage": 1.5}
		switch s.job.shape {
		case JobContentGSE:
			in["isAuto"], in["startTime"] = p.Hosted, p.LastStartTime
		case JobContentStrings:
			in["isAuto"], in["startTime"], in["stime"], in["utime"] = p.Hosted, "", "0", "0"
		case JobContentDoc:
			in["startTime"], in["stime"], in["utime"], in["freeVMem"] = "", "0", "0", "0"
		}
		instances = append(instances, in)
	}
	b, _ := json.Marshal(map[string]any{"process": []any{map[string]any{"procname": p.ProcName, "instance": instances}}, "ip": p.IP, "timezone": 8})
	return string(b)
}

func (p jobProc) index() string {
	if p.ValueKey != "" {
		return p.ValueKey
	}
	return p.SetupPath + "/" + p.ProcName
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
	rec := TaskRecord{API: "job/" + api, Items: len(r.ProcessInfos)}
	logged := op
	if api == "manage_proc" { // as GSE numbers it: 1 register hosting, 2 unregister
		logged = map[int]int{1: 3, 2: 4}[op]
	}
	for _, p := range r.ProcessInfos {
		for _, h := range p.IPList {
			key := fmt.Sprintf("%s/%s:%d:%s", p.SetupPath, p.ProcName, h.BkCloudID, h.IP)
			rec.Hosts++
			rec.Targets = append(rec.Targets, TaskTarget{Process: p.SetupPath + "/" + p.ProcName, Op: logged, BkCloudID: h.BkCloudID, IP: h.IP})
			if f := s.takeHostFault("job/"+api, h.IP, op); f != nil {
				t.results[key] = hostResult{ErrorCode: f.Code, ErrorMsg: f.Message}
				continue
			}
			t.results[key] = s.operateJob(api, scope, p, h, op)
		}
	}
	return map[string]string{"bk_gse_taskid": s.logTask(t, rec)}
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
				return hostResult{ErrorMsg: "success", Content: s.jobStatusContent(k, &Process{ProcName: p.ProcName, IP: h.IP, PID: -1}, p)}
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
	if op == 2 {
		return hostResult{ErrorMsg: "success", Content: s.jobStatusContent(k, proc, p)}
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
	s.closeTask(t, done)
	status := 1 // running
	if done {
		status = 2
	}
	if s.job.shape != JobContentDoc {
		return map[string]any{"status": status, "result": results}, nil
	}
	type docResult struct {
		ErrorCode int             `json:"error_code"`
		ErrorMsg  string          `json:"error_msg"`
		Content   json.RawMessage `json:"content"`
	}
	doc := make(map[string]docResult, len(results))
	for k, r := range results {
		d := docResult{ErrorCode: r.ErrorCode, ErrorMsg: r.ErrorMsg, Content: json.RawMessage(`""`)}
		if json.Valid([]byte(r.Content)) {
			d.Content = json.RawMessage(r.Content) // the object itself, not a string
		}
		doc[k] = d
	}
	return map[string]any{"status": status, "result": doc}, nil
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
