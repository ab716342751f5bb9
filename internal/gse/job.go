package gse

import (
	"context"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

const familyJOB = "job"

// JobIP is one host of a JOB process_infos item.
type JobIP struct {
	BkCloudID int64  `json:"bk_cloud_id"`
	IP        string `json:"ip"`
}

// The one conversion between the two wire forms of a host by address: Host
// (the GSE APIs) and JobIP (the JOB APIs). Both keep their Key and name.

// Host is the GSE host ip names.
func (ip JobIP) Host() Host { return Host{IP: ip.IP, BkCloudID: ip.BkCloudID} }

// JobIP is h as JOB addresses it, by ip and bk_cloud_id (JOB has no agent-id form).
func (h Host) JobIP() JobIP { return JobIP{IP: h.IP, BkCloudID: h.BkCloudID} }

// JobProcess is a process_infos item of JOB's operate_proc and
// operate_process. The client does not send manage_proc: on the open-source
// JOB server it stops a process (op_type 1) or queries it (2), and never
// hosts one (see JobService.Operate).
type JobProcess struct {
	SetupPath           string  `json:"setup_path,omitempty"`
	ProcName            string  `json:"proc_name"`
	PidPath             string  `json:"pid_path,omitempty"`
	Account             string  `json:"account,omitempty"`
	CmdShellExt         string  `json:"cmd_shell_ext,omitempty"` // operate_proc: sh, bat or ps1
	Contact             string  `json:"contact,omitempty"`       // operate_process
	CfgPath             string  `json:"cfg_path,omitempty"`
	LogPath             string  `json:"log_path,omitempty"`
	StartCmd            string  `json:"start_cmd,omitempty"`
	StopCmd             string  `json:"stop_cmd,omitempty"`
	RestartCmd          string  `json:"restart_cmd,omitempty"`
	ReloadCmd           string  `json:"reload_cmd,omitempty"`
	KillCmd             string  `json:"kill_cmd,omitempty"`
	FuncID              string  `json:"func_id,omitempty"`
	InstanceID          string  `json:"instance_id,omitempty"`
	ValueKey            string  `json:"value_key,omitempty"`
	Type                *int64  `json:"type,omitempty"`
	CPULmt              *int64  `json:"cpu_lmt,omitempty"`
	MemLmt              *int64  `json:"mem_lmt,omitempty"`
	CycleTime           *int64  `json:"cycle_time,omitempty"`
	InstanceNum         *int64  `json:"instance_num,omitempty"`
	StartCheckBeginTime *int64  `json:"start_check_begin_time,omitempty"`
	StartCheckEndTime   *int64  `json:"start_check_end_time,omitempty"`
	OpTimeout           *int64  `json:"op_timeout,omitempty"`
	IPList              []JobIP `json:"ip_list"`
}

// Path is the process part of a JOB result key: {setup_path}/{proc_name}.
func (p JobProcess) Path() string { return normalizeJobPath(p.SetupPath + "/" + p.ProcName) }

// normalizeJobPath folds the slashes a setup_path may end with, so that
// "/bin/" + "/" + "nginx" and "/bin" + "/" + "nginx" name the same process.
func normalizeJobPath(p string) string {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return p
	}
	return strings.TrimRight(p[:i], `/\`) + "/" + p[i+1:]
}

// JobScope is the business (biz) or business set (biz_set) a JOB call acts in.
type JobScope struct {
	Type string // "biz" or "biz_set"
	ID   string
}

// BizScope is the scope of business bizID.
func BizScope(bizID int64) JobScope { return JobScope{Type: "biz", ID: strconv.FormatInt(bizID, 10)} }

func (s JobScope) String() string { return s.Type + ":" + s.ID }

// fields are the scope arguments of a body: bk_scope_type / bk_scope_id, and
// bk_biz_id as well for a business, for the APIs that predate scopes.
func (s JobScope) fields() map[string]any {
	f := map[string]any{"bk_scope_type": s.Type, "bk_scope_id": s.ID}
	if id, err := strconv.ParseInt(s.ID, 10, 64); err == nil && s.Type == "biz" {
		f["bk_biz_id"] = id
	}
	return f
}

// JobTarget is what a JOB call acts on: a process, by its index in the agent,
// in a scope. Diagnostics name it; it is not a GSE Meta.
type JobTarget struct {
	Scope    JobScope
	Path     string // {setup_path}/{proc_name}
	ValueKey string // the agent's index when set, instead of Path
}

// TargetOf is the target of p in scope.
func TargetOf(scope JobScope, p JobProcess) JobTarget {
	return JobTarget{Scope: scope, Path: p.Path(), ValueKey: p.ValueKey}
}

func (t JobTarget) String() string {
	s := "JOB " + t.Scope.String() + "/" + t.Path
	if t.ValueKey != "" {
		s += " (value_key " + t.ValueKey + ")"
	}
	return s
}

// Key is the IP's identity, the same as Host.Key of the host it names (ipKey).
func (ip JobIP) Key() string { return ipKey(ip.BkCloudID, ip.IP) }

// String names the IP as errors name the host it is (Host.String).
func (ip JobIP) String() string { return ip.Host().String() }

type jobTaskReply struct {
	TaskID string `json:"bk_gse_taskid"`
}

// submit starts a JOB task and returns its bk_gse_taskid.
func (s *JobService) submit(ctx context.Context, api string, scope JobScope, op int, procs []JobProcess) (string, error) {
	body := scope.fields()
	body["op_type"] = op
	body["process_infos"] = procs
	var out jobTaskReply
	err := s.client.call(ctx, familyJOB, api, body, &out, false)
	return out.TaskID, jobRemoved(err)
}

// jobResult is the reply of get_proc_result.
type jobResult struct {
	Status int                       `json:"status"`
	Result map[string]jobResultEntry `json:"result"`
}

// jobResultEntry is one key of get_proc_result; its content may be a string or an object.
type jobResultEntry struct {
	ErrorCode int        `json:"error_code"`
	ErrorMsg  string     `json:"error_msg"`
	Content   rawContent `json:"content"`
}

// result polls a JOB task once (get_proc_result).
func (s *JobService) result(ctx context.Context, scope JobScope, taskID string) (map[string]HostResult, error) {
	body := scope.fields()
	body["bk_gse_taskid"] = taskID
	var out jobResult
	if err := s.client.call(ctx, familyJOB, "get_proc_result", body, &out, true); err != nil {
		return nil, jobRemoved(err)
	}
	res := make(map[string]HostResult, len(out.Result))
	for k, e := range out.Result {
		res[k] = HostResult{ErrorCode: e.ErrorCode, ErrorMsg: e.ErrorMsg, Content: string(e.Content)}
	}
	return res, nil
}

// JobIPOutcome is one IP's final result of a JOB task.
type JobIPOutcome struct {
	Process string // {setup_path}/{proc_name} of its process_infos item
	IP      JobIP
	Op      OpType
	HostResult
	Status     Status // what the content says: instances (status query), isAuto
	ContentErr error  // content that is not the documented JSON; Status is then empty
}

// OK reports whether the result counts as success, as HostOutcome.OK does.
func (o JobIPOutcome) OK() bool { return HostOutcome{Op: o.Op, HostResult: o.HostResult}.OK() }

// JobOutcome is the result of a JOB task: one entry per IP that finished.
type JobOutcome struct {
	TaskID string
	IPs    []JobIPOutcome
}

// Succeeded lists the IPs whose result is a success.
func (o *JobOutcome) Succeeded() []JobIP {
	var ips []JobIP
	if o != nil {
		for _, r := range o.IPs {
			if r.OK() {
				ips = append(ips, r.IP)
			}
		}
	}
	return ips
}

// Operate submits an operation with operate_process, or with operate_proc
// when a process carries cmd_shell_ext, and waits for every IP. Hosting is
// OpHost / OpUnhost here: the open-source JOB server sends op_type 3 and 4 to
// GSE's register_hosting_process / unregister_hosting_process and every other
// op_type to process_operate unchanged (bk-job before commit 2a899882a,
// GseRequestUtils.sendProcessRequest), so operate_process is the JOB API that
// hosts, as BlueKing's monitor used it.
//
// JOB API: operate_process or operate_proc, then get_proc_result (ESB).
func (s *JobService) Operate(ctx context.Context, scope JobScope, op OpType, procs []JobProcess) (*JobOutcome, error) {
	api := "operate_process"
	if slices.ContainsFunc(procs, func(p JobProcess) bool { return p.CmdShellExt != "" }) {
		api = "operate_proc" // the only JOB operation API that takes cmd_shell_ext
	}
	taskID, err := s.submit(ctx, api, scope, int(op), procs)
	if err != nil {
		return nil, err
	}
	return s.wait(ctx, api, &op, scope, taskID, op, procs)
}

// Status queries the state of a process on its IPs (op_type 2 through
// operate_process). It returns the answers of the IPs that finished, with a
// *HostsError naming those that failed or never answered.
//
// JOB API: operate_process, then get_proc_result (ESB).
func (s *JobService) Status(ctx context.Context, scope JobScope, proc JobProcess) (*JobOutcome, error) {
	return s.Operate(ctx, scope, OpStatus, []JobProcess{proc})
}

// wait polls get_proc_result until every IP of every process has a final
// result. Replies are matched against the keys built from what was sent
// (jobResultKeys), never split: a key mixes a path and an IP that both may hold ':'.
func (s *JobService) wait(ctx context.Context, api string, op *OpType, scope JobScope, taskID string, asOp OpType, procs []JobProcess) (*JobOutcome, error) {
	var keys [][]string
	var wants []JobIPOutcome
	var hosts []HostOutcome
	for _, p := range procs {
		for _, ip := range p.IPList {
			keys = append(keys, jobResultKeys(p, ip))
			wants = append(wants, JobIPOutcome{Process: p.Path(), IP: ip, Op: asOp})
			hosts = append(hosts, HostOutcome{Host: Host{IP: ip.IP, BkCloudID: ip.BkCloudID}, Op: asOp})
		}
	}
	// Progress names each IP's process as errors do: scope/path.
	report, jobHosts := progressOf(ctx), make([]HostOutcome, len(hosts))
	for i, w := range wants {
		jobHosts[i] = hosts[i]
		jobHosts[i].Meta = Meta{Namespace: scope.String(), Name: w.Process}
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	final, err := pollTask(ctx, s.client.poll, func(ctx context.Context) (map[int]HostResult, error) {
		res, err := s.result(ctx, scope, taskID)
		if err != nil {
			return nil, err
		}
		return matchJobResults(res, keys), nil
	}, idx, func(i int, r HostResult) { report(jobHosts[i].with(r)) })
	// The error names the one process, or the scope of several.
	e := &HostsError{API: api, Op: op, TaskID: taskID, Target: scope}
	if len(procs) == 1 {
		e.Target = TargetOf(scope, procs[0])
	}
	_, err = conclude(ctx, err, e, final, idx, hosts)
	out := &JobOutcome{TaskID: taskID}
	for i, w := range wants {
		r, ok := final[i]
		if !ok {
			continue
		}
		w.HostResult = r
		w.Status, w.ContentErr = ParseContent(r.Content)
		out.IPs = append(out.IPs, w)
	}
	return out, err
}

// jobResultKeys are the spellings of the result key of ip for p:
// {setup_path}/{proc_name}:{bk_cloud_id}:{ip}, with the path as sent or with
// setup_path's trailing slashes folded (as the agent indexes it), and the IP as
// sent, canonical, or unmapped from IPv4-mapped IPv6. The spelling as sent comes first.
func jobResultKeys(p JobProcess, ip JobIP) []string {
	paths := []string{p.SetupPath + "/" + p.ProcName, p.Path()}
	ips := []string{ip.IP}
	if a, err := netip.ParseAddr(ip.IP); err == nil {
		ips = append(ips, a.String(), a.Unmap().String(), a.WithZone("").String(), a.Unmap().WithZone("").String())
	}
	var keys []string
	for _, path := range paths {
		for _, addr := range ips {
			k := path + ":" + strconv.FormatInt(ip.BkCloudID, 10) + ":" + addr
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// matchJobResults finds each wanted key's entry in a reply: the first of its
// spellings the reply holds. Entries of other keys are ignored.
func matchJobResults(reply map[string]HostResult, keys [][]string) map[int]HostResult {
	got := make(map[int]HostResult, len(keys))
	for i, spellings := range keys {
		for _, k := range spellings {
			if r, ok := reply[k]; ok {
				got[i] = r
				break
			}
		}
	}
	return got
}
