package gse

import (
	"context"
	"fmt"
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

// JobProcess is a process_infos item of the JOB process APIs: the union of
// operate_proc (seed 000), operate_process (seed 001) and manage_proc (seed 003).
type JobProcess struct {
	SetupPath           string  `json:"setup_path,omitempty"`
	ProcName            string  `json:"proc_name"`
	PidPath             string  `json:"pid_path,omitempty"`
	ProcOwner           string  `json:"proc_owner,omitempty"`    // manage_proc
	Account             string  `json:"account,omitempty"`       // operate_proc, operate_process
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

// JOB manage_proc numbers its own operations.
const (
	JobRegister   = 1
	JobUnregister = 2
)

type jobTaskReply struct {
	TaskID string `json:"bk_gse_taskid"`
}

func (c *Client) jobSubmit(ctx context.Context, api string, scope JobScope, op int, procs []JobProcess) (string, error) {
	body := scope.fields()
	body["op_type"] = op
	body["process_infos"] = procs
	var out jobTaskReply
	err := c.call(ctx, familyJOB, api, body, &out, false)
	return out.TaskID, err
}

// JobOperateProc submits operate_proc (seed 000); it alone takes cmd_shell_ext.
func (c *Client) JobOperateProc(ctx context.Context, scope JobScope, op OpType, procs []JobProcess) (string, error) {
	return c.jobSubmit(ctx, "operate_proc", scope, int(op), procs)
}

// JobOperateProcess submits operate_process (seed 001), the full process definition.
func (c *Client) JobOperateProcess(ctx context.Context, scope JobScope, op OpType, procs []JobProcess) (string, error) {
	return c.jobSubmit(ctx, "operate_process", scope, int(op), procs)
}

// JobManageProc submits manage_proc (seed 003): JobRegister or JobUnregister hosting.
func (c *Client) JobManageProc(ctx context.Context, scope JobScope, op int, procs []JobProcess) (string, error) {
	return c.jobSubmit(ctx, "manage_proc", scope, op, procs)
}

// JobResult is the reply of get_proc_result.
type JobResult struct {
	Status int                   `json:"status"`
	Result map[string]HostResult `json:"result"`
}

// JobGetProcResult polls a JOB task once. Keys are {setup_path}/{proc_name}:{bk_cloud_id}:{ip}.
func (c *Client) JobGetProcResult(ctx context.Context, scope JobScope, taskID string) (*JobResult, error) {
	body := scope.fields()
	body["bk_gse_taskid"] = taskID
	var out JobResult
	err := c.call(ctx, familyJOB, "get_proc_result", body, &out, true)
	return &out, err
}

// SplitJobResultKey splits {setup_path}/{proc_name}:{bk_cloud_id}:{ip} from the
// right: a Windows setup_path holds ':' (C:\...), and so does an IPv6 address,
// so the IP is the longest tail that parses as one, and the cloud id the
// number before it.
func SplitJobResultKey(key string) (path string, cloud int64, ip string, err error) {
	for i := 0; i < len(key); i++ {
		if key[i] != ':' {
			continue
		}
		if _, perr := netip.ParseAddr(key[i+1:]); perr != nil {
			continue
		}
		rest := key[:i]
		j := strings.LastIndexByte(rest, ':')
		if j < 0 {
			continue
		}
		n, perr := strconv.ParseInt(rest[j+1:], 10, 64)
		if perr != nil || n < 0 {
			continue
		}
		return rest[:j], n, key[i+1:], nil
	}
	return "", 0, "", fmt.Errorf("JOB result key %q is not {setup_path}/{proc_name}:{bk_cloud_id}:{ip}", key)
}

type jobAddr struct {
	path  string
	cloud int64
	ip    string
}

// JobOperate submits an operation with operate_process, or with operate_proc
// when a process carries cmd_shell_ext, and waits for every IP. In the
// outcome, Meta.Namespace is the scope and Meta.Name the process path
// ({setup_path}/{proc_name}).
func (c *Client) JobOperate(ctx context.Context, scope JobScope, op OpType, procs []JobProcess) (*Outcome, error) {
	submit, api := c.JobOperateProcess, "operate_process"
	if slices.ContainsFunc(procs, func(p JobProcess) bool { return p.CmdShellExt != "" }) {
		submit, api = c.JobOperateProc, "operate_proc"
	}
	taskID, err := submit(ctx, scope, op, procs)
	if err != nil {
		return nil, err
	}
	return c.jobWait(ctx, api, scope, taskID, op, procs)
}

// JobManage registers (JobRegister) or unregisters (JobUnregister) hosting with manage_proc and waits for every IP.
func (c *Client) JobManage(ctx context.Context, scope JobScope, op int, procs []JobProcess) (*Outcome, error) {
	taskID, err := c.JobManageProc(ctx, scope, op, procs)
	if err != nil {
		return nil, err
	}
	asOp := OpHost
	if op == JobUnregister {
		asOp = OpUnhost
	}
	return c.jobWait(ctx, "manage_proc", scope, taskID, asOp, procs)
}

// jobWait polls get_proc_result until every IP of every process has a final
// result, as wait does for GSE tasks.
func (c *Client) jobWait(ctx context.Context, api string, scope JobScope, taskID string, op OpType, procs []JobProcess) (*Outcome, error) {
	var keys []jobAddr
	var wants []HostOutcome
	for _, p := range procs {
		for _, ip := range p.IPList {
			keys = append(keys, jobAddr{p.Path(), ip.BkCloudID, CanonicalIP(ip.IP)})
			wants = append(wants, HostOutcome{Host: Host{IP: ip.IP, BkCloudID: ip.BkCloudID}, Meta: Meta{Namespace: scope.String(), Name: p.Path()}, Op: op})
		}
	}
	final, err := pollTask(ctx, c.poll, func(ctx context.Context) (map[jobAddr]HostResult, error) {
		res, err := c.JobGetProcResult(ctx, scope, taskID)
		if err != nil {
			return nil, err
		}
		got := make(map[jobAddr]HostResult, len(res.Result))
		for key, r := range res.Result {
			if path, cloud, ip, err := SplitJobResultKey(key); err == nil {
				got[jobAddr{normalizeJobPath(path), cloud, CanonicalIP(ip)}] = r
			}
		}
		return got, nil
	}, keys)
	return conclude(ctx, err, &HostsError{API: api, Meta: wants[0].Meta, Op: &op, TaskID: taskID}, final, keys, wants)
}
