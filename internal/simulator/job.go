package simulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The JOB family's process APIs (/api/c/compapi/v2/job/...): manage_proc, operate_proc,
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

// JOB is the endpoint of JOB's process APIs: the processes JOB has had GSE
// run, kept per scope and index (JOB hands GSE whole definitions, so they
// are apart from the GSE endpoint's), and how the installation answers.
// Its tasks are GSE's (tasks.go).
type JOB struct {
	book                    // namespace is the scope, name the index (value_key or path)
	shape   JobContentShape // how status answers are written
	down    map[procKey]int // leading instances that are not running
	removed bool            // JOB 3.7+: the process APIs are gone
}

// SetContentShape sets how status answers are written from now on.
func (j *JOB) SetContentShape(shape JobContentShape) {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	j.shape = shape
}

// SetProcessAPIsRemoved makes the installation a JOB 3.7 or later (true)
// or 3.6 and earlier again (false): bk-job commit 2a899882a deleted
// manage_proc, operate_proc, operate_process and get_proc_result; its
// gateway still passes any API name to the backend, which answers Spring's
// 404, and an ESB that still lists the components answers 1306201 "Status
// Code: 404" (esb/outgoing.py _request).
func (j *JOB) SetProcessAPIsRemoved(removed bool) {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	j.removed = removed
}

// InstancesDown makes the first n instances of a JOB process report no pid
// in status answers; its other instances (instance_num) keep running.
func (j *JOB) InstancesDown(scope, index string, cloud int64, ip string, n int) {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	j.down[keyOf(scope, index, cloud, ip)] = n
}

// statusContent is a status answer for p, one instance per instance_num.
func (j *JOB) statusContent(k procKey, p *Process, def JobDefinition) string {
	n := max(def.InstanceNum, 1)
	var instances []map[string]any
	for i := range n {
		pid := int64(-1)
		if p.Running && i >= j.down[k] {
			pid = p.PID + int64(i)
		}
		in := map[string]any{"pid": pid, "version": p.Version, "processName": p.ProcName, "cpuUsage": 0.5, "phyMemUsage": 1.5}
		switch j.shape {
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

func (j *JOB) serve(w http.ResponseWriter, r *http.Request) {
	j.hub.serve(w, r, "job/", j.dispatch)
}

func (j *JOB) dispatch(api string, raw []byte) (any, *apiError) {
	if j.removed {
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
		return j.poll(scope, req.TaskID)
	}
	if _, known := jobAPIs[api]; !known {
		return nil, &apiError{codeComponentNotFound, "Not found, component class not found, job/" + api}
	}
	if !ok || !req.valid(api) {
		return nil, illegalParam()
	}
	return j.submit(api, scope, &req), nil
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
	if r.OpType == nil || !slices.Contains(jobAPIs[api].ops, opType(*r.OpType)) || len(r.ProcessInfos) == 0 {
		return false
	}
	for _, p := range r.ProcessInfos {
		if strings.TrimSpace(p.SetupPath) == "" || strings.TrimSpace(p.ProcName) == "" || strings.TrimSpace(p.PidPath) == "" || len(p.IPList) == 0 {
			return false
		}
	}
	return true
}

// submit hands every process to GSE with op_type as sent
// (GseApiExecutor.processOperateProcess, for all three APIs): GseRequestUtils.
// sendProcessRequest sends 3 to register_hosting_process, 4 to
// unregister_hosting_process and any other to process_operate, where 1 stops
// and 2 queries. manage_proc's 1 and 2 therefore stop and query: it
// cannot host a process, whatever its document says.
func (j *JOB) submit(api, scope string, r *jobRequest) any {
	t := j.hub.newTask()
	t.job = true
	op := opType(*r.OpType)
	rec := TaskRecord{API: "job/" + api, Items: len(r.ProcessInfos)}
	for _, p := range r.ProcessInfos {
		def := jobAPIs[api].definition(p)
		for _, h := range p.IPList {
			key := fmt.Sprintf("%s/%s:%d:%s", p.SetupPath, p.ProcName, h.BkCloudID, h.IP)
			rec.Hosts++
			rec.Targets = append(rec.Targets, TaskTarget{Process: p.SetupPath + "/" + p.ProcName, Op: *r.OpType, BkCloudID: h.BkCloudID, IP: h.IP})
			if f := j.hub.takeHostFault("job/"+api, h.IP, op); f != nil {
				t.results[key] = hostResult{ErrorCode: f.Code, ErrorMsg: f.Message}
				continue
			}
			t.results[key] = j.operate(scope, def, h, op)
		}
	}
	return map[string]string{"bk_gse_taskid": j.hub.logTask(t, rec)}
}

// operate runs op on a JOB process. JOB sends the whole definition, so the
// agent can act on a process it has not seen: a start, register hosting or
// restart creates it. Unregistering hosting leaves the process known to the
// agent, unhosted.
func (j *JOB) operate(scope string, def JobDefinition, h wireHost, op opType) hostResult {
	k := keyOf(scope, def.index(), h.BkCloudID, h.IP)
	proc, known := j.procs[k]
	if !known {
		if op != opStart && op != opRegisterHosting && op != opRestart {
			if op == opStatus {
				return hostResult{ErrorMsg: "success", Content: j.statusContent(k, &Process{ProcName: def.ProcName, IP: h.IP, PID: -1}, def)}
			}
			return hostResult{ErrorCode: hostNotRunning, ErrorMsg: "process is not running"}
		}
		proc = &Process{Namespace: scope, Name: def.index(), IP: h.IP, BkCloudID: h.BkCloudID, PID: -1, RegisterTime: j.hub.clock.now().Unix()}
		j.procs[k] = proc
	}
	proc.ProcName, proc.SetupPath = def.ProcName, def.SetupPath
	if op == opRegisterHosting || op == opStart {
		proc.Spec, _ = json.Marshal(def)
	}
	if op == opStatus {
		return hostResult{ErrorMsg: "success", Content: j.statusContent(k, proc, def)}
	}
	return j.hub.apply(proc, op, def.Type)
}

// JOB's status of a get_proc_result answer.
const (
	jobTaskRunning = 1
	jobTaskDone    = 2
)

// poll answers get_proc_result. GseGetProcResultResourceImpl turns each
// result's content, a JSON string from GSE, into the object it holds (an
// empty content stays ""), and passes 1000115 (not queued yet) through.
func (j *JOB) poll(scope, id string) (any, *apiError) {
	t, ok := j.hub.tasks.byID[id]
	if !ok || !t.job {
		return nil, badParams("task %q not found in %s", id, scope)
	}
	results, done, err := t.answer()
	if err != nil {
		return nil, err
	}
	j.hub.closeTask(t, done)
	status := jobTaskRunning
	if done {
		status = jobTaskDone
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
