package simulator

import (
	"encoding/json"
	"fmt"
)

// The agent on each host: what it does with an operation on one process,
// and what it answers for that host. GSE's operate APIs hand it the op_type
// as sent, and so does JOB, which runs its process APIs through GSE.

// opType is an op_type of GSE's operate APIs (operate_proc, operate_proc_v2),
// named as the API docs name them. 5 and 6 do not exist.
type opType int

const (
	opStart             opType = 0
	opStop              opType = 1
	opStatus            opType = 2
	opRegisterHosting   opType = 3
	opUnregisterHosting opType = 4
	opRestart           opType = 7
	opReload            opType = 8
	opKill              opType = 9
	// noOp is the op of a host fault taken by an API that is not an operation.
	noOp opType = -1
)

// Per-host codes of GSE's process APIs. codeNotRegistered is the simulator's
// choice: GSE's code for operating a process that is not registered is not
// documented publicly.
const (
	hostPending        = 115
	hostAlreadyRunning = 828
	hostNotRunning     = 829
	hostUnknownOp      = 832
	hostRegistered     = 850
	codeNotRegistered  = 404
)

// agentDamaged is list_agent_state's status_code of an agent that is
// installed and not running (3, damaged: the GSE 2.0 API docs).
const agentDamaged = 3

// SetAgentDown takes the GSE agent of host cloud:ip down (true) or brings it
// back, through both doors. Through ESB every operation on the host
// (operate_proc, operate_proc_v2, operate_proc_multi) ends with 117 for the
// host, nothing done, the per-host code GSE gives an agent it cannot reach
// (bk-process-config-manager apps/gsekit/pipeline_plugins/components/collections/gse.py
// GseDataErrorCode.AGENT_NOT_FIND = 117, "AGENT状态异常"; bk-nodeman
// apps/backend/api/constants.py GseDataErrCode.AGENT_ABNORMAL = 117, "Agent
// 状态异常"); register_proc_info, update_proc_info, unregister_proc_info and
// the status reads answer as before (the simulator's choice: no public
// source says what they answer for a host whose agent is down).
// Through the gateway the host's agent (the one registered for it, else
// {bk_cloud_id}:{ip}) reports status_code 3 (damaged) to list_agent_state,
// with what Gateway.SetAgentState says of a down agent.
func (s *Server) SetAgentDown(cloud int64, ip string, down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, id := keyOf("", "", cloud, ip), s.gateway.hostAgent(cloud, ip)
	if down {
		s.gse.down[k], s.gateway.states[normalAgent(id)] = true, agentDamaged
		return
	}
	delete(s.gse.down, k)
	delete(s.gateway.states, normalAgent(id))
}

// hostResult is one host's result of a GSE process API.
type hostResult struct {
	ErrorCode int    `json:"error_code"`
	ErrorMsg  string `json:"error_msg"`
	Content   string `json:"content"`
}

// One-shot processes (auto_type 2, bk-nodeman apps/node_man/constants.py
// GseAutoType.SINGLE_EXECUTION) run and exit: the agent's check after a
// start or restart then finds no process and answers 836 (bk-nodeman
// apps/backend/api/constants.py GseDataErrCode.POST_CHECK_ERROR), which
// bk-nodeman counts as success for exactly that case
// (apps/backend/components/collections/plugin.py
// GseOperateProcService.handle_error_code: "单次执行进程，启动后无需检查进程存活情况").
// The simulator's one-shots all exit before that check. Resident processes
// (auto_type 1) are the ones the agent keeps up.
const (
	autoTypeResident = 1
	autoTypeOneShot  = 2
	hostPostCheck    = 836
)

// apply runs op on one process on one host, as the agent would.
func (s *Server) apply(p *Process, op opType, autoType int) hostResult {
	at := s.clock.now()
	now := at.Unix()
	defer func() {
		if p.Running && (op == opStart || op == opRestart || op == opReload) {
			s.armDeath(p, at)
		}
	}()
	start := func() {
		s.seq++
		p.Running, p.PID, p.LastStartTime, p.Version = true, int64(10000+s.seq), now, "1.0.0"
	}
	ranAndExited := func() hostResult {
		p.Running, p.PID = false, -1
		return hostResult{ErrorCode: hostPostCheck, ErrorMsg: "post check failed: the process is not running after the operation"}
	}
	switch op {
	case opStart: // hosted on success
		p.Hosted = true
		if p.Running {
			return hostResult{ErrorCode: hostAlreadyRunning, ErrorMsg: "process is already running"}
		}
		start()
		if autoType == autoTypeOneShot {
			return ranAndExited()
		}
	case opStop, opKill: // not hosted afterwards
		p.Hosted = false
		if !p.Running {
			return hostResult{ErrorCode: hostNotRunning, ErrorMsg: "process is not running"}
		}
		p.Running, p.PID = false, -1
	case opStatus:
		return hostResult{ErrorMsg: "success", Content: statusContent(p)}
	case opRegisterHosting: // the agent pulls up a resident process that is down
		p.Hosted = true
		if !p.Running && autoType == autoTypeResident {
			start()
		}
	case opUnregisterHosting:
		p.Hosted = false
	case opRestart:
		start()
		p.Restarts++
		if autoType == autoTypeOneShot {
			return ranAndExited()
		}
	case opReload:
		if !p.Running {
			return hostResult{ErrorCode: hostNotRunning, ErrorMsg: "process is not running"}
		}
		p.Reloads++
	default:
		return hostResult{ErrorCode: hostUnknownOp, ErrorMsg: fmt.Sprintf("unknown op_type %d", op)}
	}
	return hostResult{ErrorMsg: "success"}
}

func statusContent(p *Process) string {
	b, _ := json.Marshal(map[string]any{"process": []any{map[string]any{
		"procname": p.ProcName,
		"instance": []any{map[string]any{"pid": p.PID, "isAuto": p.Hosted, "version": p.Version, "cpuUsage": 0.5, "phyMemUsage": 1.5, "startTime": p.LastStartTime}},
	}}})
	return string(b)
}
