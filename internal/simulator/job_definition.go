package simulator

import (
	"fmt"
	"strings"
)

// What JOB hands GSE for a process: each JOB API's reading of a
// process_infos item, with the defaults bk-job applies (cited by class and
// method, as in job.go).

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

// jobOperateOps are ProcessOperateTypeEnum's op_types: 0-4 and 7-9, GSE's own.
var jobOperateOps = []opType{opStart, opStop, opStatus, opRegisterHosting, opUnregisterHosting, opRestart, opReload, opKill}

// jobAPIs is how each JOB API reads a request: the op_types its checkRequest
// accepts (ProcessManageTypeEnum: 1 and 2, which reach GSE as stop and
// status, see JOB.submit; ProcessOperateTypeEnum: 0-4, 7-9) and its definition.
var jobAPIs = map[string]struct {
	ops        []opType
	definition func(jobProcInfo) JobDefinition
}{
	"manage_proc":     {[]opType{opStop, opStatus}, manageProcDefinition},
	"operate_proc":    {jobOperateOps, operateProcDefinition},
	"operate_process": {jobOperateOps, operateProcessDefinition},
}
