package simulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The JOB family (/api/c/compapi/v2/job/...): manage_proc, operate_proc,
// operate_process and get_proc_result, answered as the open-source JOB server
// answered them before it deleted them: TencentBlueKing/bk-job at the parent
// of commit 2a899882a (2022-06-15), service-job-execute's
// api/esb/gse/impl/Gse*ResourceImpl.java, gse/GseApiExecutor.java and
// engine/gse/GseRequestUtils.java (cited below by class and method). Its API
// names carry the prefix "job/" in Calls and faults. A JOB process is kept per
// scope ("biz:1") and index: value_key, else {setup_path}/{proc_name}.

// Codes of the JOB server and of ESB in front of it.
const (
	// codeJobIllegalParam is bk-job's ErrorCode.ILLEGAL_PARAM, the answer of
	// every checkRequest that fails.
	codeJobIllegalParam = 1241002
)

// jobRequest is bk-job's EsbAppScopeReq (bk_biz_id, or bk_scope_type and
// bk_scope_id) with the fields of EsbGseManageProcRequest,
// EsbGseOperateProcessRequest and EsbGseGetProcResultRequest.
type jobRequest struct {
	BkBizID      *int64        `json:"bk_biz_id"`
	ScopeType    string        `json:"bk_scope_type"`
	ScopeID      string        `json:"bk_scope_id"`
	OpType       *int          `json:"op_type"`
	ProcessInfos []jobProcInfo `json:"process_infos"`
	TaskID       string        `json:"bk_gse_taskid"`
}

// jobProcInfo is a process_infos item. manage_proc reads it as
// ManageProcessInfoDTO (Integer fields: absent is null, then defaulted by
// buildGseProcessInfoDTO); operate_proc and operate_process as
// EsbProcessInfoDTO, whose number fields are Java ints: absent is 0. Pointers
// keep "absent" visible for each reading (see the *Definition functions).
type jobProcInfo struct {
	SetupPath           string     `json:"setup_path"`
	ProcName            string     `json:"proc_name"`
	PidPath             string     `json:"pid_path"`
	ProcOwner           string     `json:"proc_owner"` // manage_proc: the contact
	Contact             string     `json:"contact"`
	Account             string     `json:"account"`
	CmdShellExt         string     `json:"cmd_shell_ext"`
	CfgPath             string     `json:"cfg_path"`
	LogPath             string     `json:"log_path"`
	StartCmd            string     `json:"start_cmd"`
	StopCmd             string     `json:"stop_cmd"`
	RestartCmd          string     `json:"restart_cmd"`
	ReloadCmd           string     `json:"reload_cmd"`
	KillCmd             string     `json:"kill_cmd"`
	FuncID              string     `json:"func_id"`
	InstanceID          string     `json:"instance_id"`
	ValueKey            string     `json:"value_key"`
	Type                *int       `json:"type"`
	CPULmt              *int       `json:"cpu_lmt"`
	MemLmt              *int       `json:"mem_lmt"`
	CycleTime           *int       `json:"cycle_time"`
	InstanceNum         *int       `json:"instance_num"`
	StartCheckBeginTime *int       `json:"start_check_begin_time"`
	StartCheckEndTime   *int       `json:"start_check_end_time"`
	OpTimeout           *int       `json:"op_timeout"`
	IPList              []wireHost `json:"ip_list"`
}

// JobDefinition is what JOB hands GSE for a process (bk-job
// GseProcessInfoDTO) once the API has applied its defaults. A JOB process
// keeps the last one of a start or register hosting as its Spec, so tests
// read what GSE was really asked to run.
type JobDefinition struct {
	Account             string `json:"account"` // GseProcessInfoDTO.userName: the agent's account
	SetupPath           string `json:"setup_path"`
	ProcName            string `json:"proc_name"`
	PidPath             string `json:"pid_path"`
	CfgPath             string `json:"cfg_path"`
	LogPath             string `json:"log_path"`
	Contact             string `json:"contact"`
	StartCmd            string `json:"start_cmd"`
	StopCmd             string `json:"stop_cmd"`
	RestartCmd          string `json:"restart_cmd"`
	ReloadCmd           string `json:"reload_cmd"`
	KillCmd             string `json:"kill_cmd"`
	FuncID              string `json:"func_id"`
	InstanceID          string `json:"instance_id"`
	ValueKey            string `json:"value_key"`
	Type                int    `json:"type"`
	CPULmt              int    `json:"cpu_lmt"`
	MemLmt              int    `json:"mem_lmt"`
	CycleTime           int    `json:"cycle_time"`
	InstanceNum         int    `json:"instance_num"`
	StartCheckBeginTime int    `json:"start_check_begin_time"`
	StartCheckEndTime   int    `json:"start_check_end_time"`
	OpTimeout           int    `json:"op_timeout"`
}

// index is the agent's key of the process: value_key, else the path.
func (d JobDefinition) index() string {
	if d.ValueKey != "" {
		return d.ValueKey
	}
	return d.SetupPath + "/" + d.ProcName
}

// num is a number field as JOB reads it: 0 when absent (a Java int, or
// buildGseProcessInfoDTO's getDefaultIfNull(value, 0)).
func num(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// percentOr is a limit in [0, 100], else def.
func percentOr(v, def int) int {
	if v < 0 || v > 100 {
		return def
	}
	return v
}

func accountOrRoot(a string) string {
	if strings.TrimSpace(a) == "" {
		return "root"
	}
	return a
}

// manageProcDefinition is GseManageProcessResourceImpl.buildGseProcessInfoDTO:
// account root when blank, proc_owner as the contact, type 0 (periodic) and
// cycle_time 0 when unset, limits 0 when unset or outside 0-100, other numbers 0.
func manageProcDefinition(p jobProcInfo) JobDefinition {
	return JobDefinition{
		Account: accountOrRoot(p.Account), SetupPath: p.SetupPath, ProcName: p.ProcName, PidPath: p.PidPath, CfgPath: p.CfgPath, LogPath: p.LogPath,
		Contact: p.ProcOwner, StartCmd: p.StartCmd, StopCmd: p.StopCmd, RestartCmd: p.RestartCmd, ReloadCmd: p.ReloadCmd, KillCmd: p.KillCmd,
		FuncID: p.FuncID, InstanceID: p.InstanceID, ValueKey: p.ValueKey,
		Type: num(p.Type), CPULmt: percentOr(num(p.CPULmt), 0), MemLmt: percentOr(num(p.MemLmt), 0), CycleTime: num(p.CycleTime),
		InstanceNum: num(p.InstanceNum), StartCheckBeginTime: num(p.StartCheckBeginTime),
		StartCheckEndTime: num(p.StartCheckEndTime), OpTimeout: num(p.OpTimeout),
	}
}

// operateProcessDefinition is GseOperateProcessV2ResourceImpl.gseOperateProcessV2:
// every field as sent (an absent number is 0: EsbProcessInfoDTO's ints, so
// type 0, a periodic process with cycle_time 0), account root when blank, and
// start_check_end_time replaced by start_check_begin_time (the server copies
// getStartCheckBeginTime into both).
func operateProcessDefinition(p jobProcInfo) JobDefinition {
	return JobDefinition{
		Account: accountOrRoot(p.Account), SetupPath: p.SetupPath, ProcName: p.ProcName, PidPath: p.PidPath, CfgPath: p.CfgPath, LogPath: p.LogPath,
		Contact: p.Contact, StartCmd: p.StartCmd, StopCmd: p.StopCmd, RestartCmd: p.RestartCmd, ReloadCmd: p.ReloadCmd, KillCmd: p.KillCmd,
		FuncID: p.FuncID, InstanceID: p.InstanceID, ValueKey: p.ValueKey,
		Type: num(p.Type), CPULmt: num(p.CPULmt), MemLmt: num(p.MemLmt), CycleTime: num(p.CycleTime),
		InstanceNum: num(p.InstanceNum), StartCheckBeginTime: num(p.StartCheckBeginTime),
		StartCheckEndTime: num(p.StartCheckBeginTime), OpTimeout: num(p.OpTimeout),
	}
}

// operateProcDefinition is GseOperateProcessResourceImpl.gseOperateProcess: the
// commands the caller sends are ignored; JOB writes
// "cd {setup_path} && ./{start,stop,restart,reload}.{ext} {proc_name} &" (for
// bat and ps1 without "./" and "&"), with ext "sh" when blank, no kill
// command, contact "mapleleaf", value_key the full path, type 1 (resident),
// instance_num 1, checks 5 / 1 s, op_timeout 10, and cpu_lmt 50 / mem_lmt 30
// in place of a value outside 0-100. An absent limit is 0 (EsbProcessInfoDTO's
// int), so 50 / 30 apply only to values out of range.
func operateProcDefinition(p jobProcInfo) JobDefinition {
	ext := p.CmdShellExt
	if strings.TrimSpace(ext) == "" {
		ext = "sh"
	}
	prefix, bg := "./", "&"
	if strings.EqualFold(ext, "bat") || strings.EqualFold(ext, "ps1") {
		prefix, bg = "", ""
	}
	cmd := func(verb string) string {
		return fmt.Sprintf("cd %s && %s%s.%s %s %s", p.SetupPath, prefix, verb, ext, p.ProcName, bg)
	}
	full := p.SetupPath + "/" + p.ProcName
	switch {
	case strings.HasSuffix(p.SetupPath, "/") || strings.HasSuffix(p.SetupPath, `\`):
		full = p.SetupPath + p.ProcName
	case strings.Contains(p.SetupPath, `\`):
		full = p.SetupPath + `\` + p.ProcName
	}
	return JobDefinition{
		Account: accountOrRoot(p.Account), SetupPath: p.SetupPath, ProcName: p.ProcName, PidPath: p.PidPath, Contact: "mapleleaf",
		StartCmd: cmd("start"), StopCmd: cmd("stop"), RestartCmd: cmd("restart"), ReloadCmd: cmd("reload"), ValueKey: full,
		Type: 1, CPULmt: percentOr(num(p.CPULmt), 50), MemLmt: percentOr(num(p.MemLmt), 30), InstanceNum: 1,
		StartCheckBeginTime: 5, StartCheckEndTime: 1, OpTimeout: 10,
	}
}

// jobAPIs is how each JOB API reads a request: the op_types its checkRequest
// accepts (ProcessManageTypeEnum: 1, 2; ProcessOperateTypeEnum: 0-4, 7-9)
// and its definition.
var jobAPIs = map[string]struct {
	ops        []int
	definition func(jobProcInfo) JobDefinition
}{
	"manage_proc":     {[]int{1, 2}, manageProcDefinition},
	"operate_proc":    {[]int{0, 1, 2, 3, 4, 7, 8, 9}, operateProcDefinition},
	"operate_process": {[]int{0, 1, 2, 3, 4, 7, 8, 9}, operateProcessDefinition},
}

// JobContentShape is how JOB status answers are written.
type JobContentShape int

const (
	// JobContentGSE: the instances as GSE writes them, with numeric times and isAuto.
	JobContentGSE JobContentShape = iota
	// JobContentDoc: startTime is "", stime and utime are strings and isAuto
	// is absent, as the public get_proc_result documentation shows it.
	JobContentDoc
	// JobContentStrings: as JobContentGSE, with the documentation's string-typed times.
	JobContentStrings
)

// jobKnobs are the JOB-only test knobs of a Server.
type jobKnobs struct {
	shape   JobContentShape
	down    map[procKey]int // leading instances that are not running
	removed bool            // JOB 3.7+: the process APIs are gone
}

// SetJobContentShape sets how status answers are written from now on.
func (s *Server) SetJobContentShape(shape JobContentShape) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.job.shape = shape
}

// SetJobProcessAPIsRemoved makes the installation a JOB 3.7 or later (true)
// or 3.6 and earlier again (false): bk-job commit 2a899882a deleted
// manage_proc, operate_proc, operate_process and get_proc_result; its
// gateway still passes any API name to the backend, which answers Spring's
// 404, and an ESB that still lists the components answers 1306201 "Status
// Code: 404" (esb/outgoing.py _request).
func (s *Server) SetJobProcessAPIsRemoved(removed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.job.removed = removed
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
func (s *Server) jobStatusContent(k procKey, p *Process, def JobDefinition) string {
	n := max(def.InstanceNum, 1)
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

func (s *Server) serveJOB(w http.ResponseWriter, r *http.Request) {
	s.serve(w, r, "job/", s.dispatchJob)
}

func (s *Server) dispatchJob(api string, raw []byte) (any, *apiError) {
	if s.job.removed {
		rep := esbThirdParty("JOBV3", api, esbThirdPartyNotFound)
		return nil, &apiError{rep.code, rep.msg}
	}
	var req jobRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, badParams("the body does not match %s: %v", api, err)
	}
	scope, ok := req.scope()
	if api == "get_proc_result" {
		// GseGetProcResultResourceImpl.checkRequest: a scope and a task id.
		if !ok || strings.TrimSpace(req.TaskID) == "" {
			return nil, illegalParam()
		}
		return s.pollJob(scope, req.TaskID)
	}
	if _, known := jobAPIs[api]; !known {
		return nil, &apiError{codeComponentNotFound, "Not found, component class not found, job/" + api}
	}
	if !ok || !req.valid(api) {
		return nil, illegalParam()
	}
	return s.submitJob(api, scope, &req), nil
}

// illegalParam is bk-job's InvalidParamException(ErrorCode.ILLEGAL_PARAM):
// checkRequest says no more than that (it logs which field).
func illegalParam() *apiError { return &apiError{codeJobIllegalParam, "Illegal param"} }

// scope is "biz:<id>" or "biz_set:<id>" as EsbAppScopeReq.fillAppResourceScope
// reads it: bk_scope_type and bk_scope_id, else bk_biz_id, where 8000000 to
// 9999999 name business sets. ok is false without a usable scope (appId unset).
func (r *jobRequest) scope() (string, bool) {
	if r.ScopeType != "" || r.ScopeID != "" {
		id, err := strconv.ParseInt(r.ScopeID, 10, 64)
		if (r.ScopeType != "biz" && r.ScopeType != "biz_set") || err != nil || id <= 0 {
			return "", false
		}
		return r.ScopeType + ":" + r.ScopeID, true
	}
	switch id := r.BkBizID; {
	case id == nil || *id <= 0:
		return "", false
	case *id >= 8000000 && *id <= 9999999:
		return fmt.Sprintf("biz_set:%d", *id), true
	default:
		return fmt.Sprintf("biz:%d", *id), true
	}
}

// valid is the checkRequest of GseManageProcessResourceImpl,
// GseOperateProcessResourceImpl and GseOperateProcessV2ResourceImpl: an
// op_type of the API, and setup_path, proc_name, pid_path and ip_list on
// every process. Nothing else is checked: not proc_owner, not cycle_time.
func (r *jobRequest) valid(api string) bool {
	if r.OpType == nil || !slices.Contains(jobAPIs[api].ops, *r.OpType) || len(r.ProcessInfos) == 0 {
		return false
	}
	for _, p := range r.ProcessInfos {
		if strings.TrimSpace(p.SetupPath) == "" || strings.TrimSpace(p.ProcName) == "" || strings.TrimSpace(p.PidPath) == "" || len(p.IPList) == 0 {
			return false
		}
	}
	return true
}

// submitJob hands every process to GSE with op_type as sent
// (GseApiExecutor.processOperateProcess, for all three APIs): GseRequestUtils.
// sendProcessRequest sends 3 to register_hosting_process, 4 to
// unregister_hosting_process and any other to process_operate, where 1 stops
// and 2 queries. manage_proc's 1 and 2 therefore stop and query: it
// cannot host a process, whatever its document says.
func (s *Server) submitJob(api, scope string, r *jobRequest) any {
	t := &task{job: true, latency: s.opts.TaskPolls, lasts: s.opts.TaskLatency, start: time.Now(), results: map[string]hostResult{}}
	op := *r.OpType
	rec := TaskRecord{API: "job/" + api, Items: len(r.ProcessInfos)}
	for _, p := range r.ProcessInfos {
		def := jobAPIs[api].definition(p)
		for _, h := range p.IPList {
			key := fmt.Sprintf("%s/%s:%d:%s", p.SetupPath, p.ProcName, h.BkCloudID, h.IP)
			rec.Hosts++
			rec.Targets = append(rec.Targets, TaskTarget{Process: p.SetupPath + "/" + p.ProcName, Op: op, BkCloudID: h.BkCloudID, IP: h.IP})
			if f := s.takeHostFault("job/"+api, h.IP, op); f != nil {
				t.results[key] = hostResult{ErrorCode: f.Code, ErrorMsg: f.Message}
				continue
			}
			t.results[key] = s.operateJob(scope, def, h, op)
		}
	}
	return map[string]string{"bk_gse_taskid": s.logTask(t, rec)}
}

// operateJob runs op on a JOB process. JOB sends the whole definition, so the
// agent can act on a process it has not seen: it is created as needed.
// Unhosting (4) leaves the process known to the agent, unhosted.
func (s *Server) operateJob(scope string, def JobDefinition, h wireHost, op int) hostResult {
	k := keyOf(scope, def.index(), h.BkCloudID, h.IP)
	proc, known := s.jobProcs[k]
	if !known {
		if op != 0 && op != 3 && op != 7 {
			if op == 2 {
				return hostResult{ErrorMsg: "success", Content: s.jobStatusContent(k, &Process{ProcName: def.ProcName, IP: h.IP, PID: -1}, def)}
			}
			return hostResult{ErrorCode: hostNotRunning, ErrorMsg: "process is not running"}
		}
		proc = &Process{Namespace: scope, Name: def.index(), IP: h.IP, BkCloudID: h.BkCloudID, PID: -1, RegisterTime: time.Now().Unix()}
		s.jobProcs[k] = proc
	}
	proc.ProcName, proc.SetupPath = def.ProcName, def.SetupPath
	if op == 3 || op == 0 {
		proc.Spec, _ = json.Marshal(def)
	}
	if op == 2 {
		return hostResult{ErrorMsg: "success", Content: s.jobStatusContent(k, proc, def)}
	}
	return s.apply(proc, op, def.Type)
}

// pollJob answers get_proc_result. GseGetProcResultResourceImpl turns each
// result's content, a JSON string from GSE, into the object it holds (an
// empty content stays ""), and passes 1000115 (not queued yet) through.
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
	type jobResult struct {
		ErrorCode int             `json:"error_code"`
		ErrorMsg  string          `json:"error_msg"`
		Content   json.RawMessage `json:"content"`
	}
	out := make(map[string]jobResult, len(results))
	for k, r := range results {
		res := jobResult{ErrorCode: r.ErrorCode, ErrorMsg: r.ErrorMsg, Content: json.RawMessage(`""`)}
		if r.Content != "" && json.Valid([]byte(r.Content)) {
			res.Content = json.RawMessage(r.Content)
		}
		out[k] = res
	}
	return map[string]any{"status": status, "result": out}, nil
}

// JobProcesses returns a copy of every process known through JOB.
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
