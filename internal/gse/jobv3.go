package gse

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// JOB's v3 file and script APIs, which current JOB still serves: a
// configuration file pushed to hosts (push_config_file), a script run on
// them (fast_execute_script), a job polled to its per-host results
// (get_job_instance_status) and a script's output read
// (batch_get_job_instance_ip_log). Request models: bk-job
// src/backend/job-execute/api-job-execute/.../model/esb/v3/request
// (EsbPushConfigFileV3Request, EsbFastExecuteScriptV3Request,
// EsbGetJobInstanceStatusV3Request, EsbBatchGetJobInstanceIpLogV3Request).

const (
	familyJOBv3 = "jobv3"
	// jobLogHostsPerRead is batch_get_job_instance_ip_log's limit.
	jobLogHostsPerRead = 500
	// jobTaskNameMax is task_name's limit in JOB's API documentation
	// (docs/apidoc/esb/jobv3-confapis).
	jobTaskNameMax = 512
)

// Job and host statuses of get_job_instance_status (bk-job RunStatusEnum,
// ExecuteObjectTaskStatusEnum).
const (
	JobSuccess       = 3
	JobHostSuccess   = 9
	JobHostLastOK    = 3
	JobHostAgentDown = 1
	JobHostNoAgent   = 18
)

// JobTargets is a target_server: hosts by bk_host_id (which IPv6 hosts
// need, and which JOB takes over ip_list when both are sent) or by IPv4 and cloud.
type JobTargets struct {
	HostIDs []int64
	IPs     []JobIP
}

func (t JobTargets) wire() map[string]any {
	if len(t.HostIDs) > 0 {
		return map[string]any{"host_id_list": t.HostIDs}
	}
	return map[string]any{"ip_list": t.IPs}
}

// ConfigFile is a text file for push_config_file: the directory it goes
// to, its name, the JOB execution account (alias) that writes it, its bytes.
type ConfigFile struct {
	Path, Name, Account string
	Content             []byte
}

// JobNeedsVerifiedUser reports whether JOB's v3 APIs go through the bk-job
// gateway with bk_username alone, which its user APIs refuse
// (userVerifiedRequired) unless the gateway exempts the app.
func (c *Client) JobNeedsVerifiedUser() bool {
	return c.job != nil && c.credential == "bk_app_code/bk_app_secret with bk_username"
}

// jobRoute is the URL of JOB's v3 api: under the bk-job gateway when it is
// configured, else ESB's jobv3/api.
func (c *Client) jobRoute(api string) (string, Root) {
	if c.job != nil {
		return c.job.JoinPath("api/v3", api).String(), RootJobGateway
	}
	return c.route(familyJOBv3, api)
}

// jobCall posts body (the scope's fields added) to JOB's v3 api.
func (c *Client) jobCall(ctx context.Context, api string, scope JobScope, body map[string]any, out any, idempotent bool) error {
	for k, v := range scope.fields() {
		body[k] = v
	}
	target, root := c.jobRoute(api)
	_, err := c.post(ctx, api, target, root, body, out, idempotent)
	return err
}

// PushConfigFile starts a job writing f on the targets and returns its id.
// A push sent again writes the same bytes: it is retried like a read.
//
// JOB API: push_config_file.
func (s *JobService) PushConfigFile(ctx context.Context, scope JobScope, f ConfigFile, to JobTargets) (int64, error) {
	return s.PushConfigFiles(ctx, scope, []ConfigFile{f}, to)
}

// PushConfigFiles starts one job writing fs, files of one Path and Account
// (the first's), on the targets, and returns its id: JOB's file_list takes
// several files to one directory (bk-job EsbPushConfigFileV3Request).
//
// JOB API: push_config_file.
func (s *JobService) PushConfigFiles(ctx context.Context, scope JobScope, fs []ConfigFile, to JobTargets) (int64, error) {
	var out struct {
		ID int64 `json:"job_instance_id"`
	}
	list := make([]map[string]string, len(fs))
	names := make([]string, len(fs))
	for i, f := range fs {
		list[i] = map[string]string{"file_name": f.Name, "content": base64.StdEncoding.EncodeToString(f.Content)}
		names[i] = f.Name
	}
	err := s.client.jobCall(ctx, "push_config_file", scope, map[string]any{
		"task_name":        taskName("terraform: " + strings.Join(names, ", ")),
		"account_alias":    fs[0].Account,
		"file_target_path": fs[0].Path,
		"file_list":        list,
		"target_server":    to.wire(),
	}, &out, true)
	return out.ID, err
}

// taskName is name cut to the 512 characters JOB's task_name takes.
func taskName(name string) string {
	if r := []rune(name); len(r) > jobTaskNameMax {
		return string(r[:jobTaskNameMax-1]) + "…"
	}
	return name
}

// Script languages of fast_execute_script (bk-job ScriptTypeEnum).
const (
	ScriptShell      = 1
	ScriptPowerShell = 5
)

// Script is a script for fast_execute_script in Language (ScriptShell when
// 0), run as account; Name is its task's name in JOB's history
// ("terraform: read" when empty).
type Script struct {
	Content, Account, Name string
	Language               int
	TimeoutSecs            int64
}

// ExecuteScript starts sc on the targets and returns the run, which
// WaitScript and ScriptLogs read: one job, or, on more targets than one job
// takes (jobScriptTargetsMax), several (jobv3_split.go).
//
// JOB API: fast_execute_script.
func (s *JobService) ExecuteScript(ctx context.Context, scope JobScope, sc Script, to JobTargets) (*ScriptRun, error) {
	parts, err := s.executeParts(ctx, scope, sc, to)
	if err != nil {
		return nil, err
	}
	return &ScriptRun{parts: parts}, nil
}

// executeScript starts one job running sc on the targets. It is never sent
// twice: JOB may have saved the job before an error (1240002).
func (s *JobService) executeScript(ctx context.Context, scope JobScope, sc Script, to JobTargets) (job, step int64, err error) {
	var out struct {
		Job  int64 `json:"job_instance_id"`
		Step int64 `json:"step_instance_id"`
	}
	lang := sc.Language
	if lang == 0 {
		lang = ScriptShell
	}
	err = s.client.jobCall(ctx, "fast_execute_script", scope, map[string]any{
		"task_name":       cmp.Or(sc.Name, "terraform: read"),
		"account_alias":   sc.Account,
		"script_content":  base64.StdEncoding.EncodeToString([]byte(sc.Content)),
		"script_language": lang,
		"timeout":         sc.TimeoutSecs,
		"target_server":   to.wire(),
	}, &out, false)
	return out.Job, out.Step, err
}

// JobStatus is a job's state: finished, its status, and its first step's
// id and per-host results (only when asked for).
type JobStatus struct {
	Finished bool `json:"finished"`
	Job      struct {
		Status int `json:"status"`
	} `json:"job_instance"`
	Steps []struct {
		ID     int64         `json:"step_instance_id"`
		Status int           `json:"status"`
		Hosts  []JobHostTask `json:"step_ip_result_list"`
	} `json:"step_instance_list"`
}

// Succeeded reports a finished job that succeeded on every host.
func (st *JobStatus) Succeeded() bool { return st.Finished && st.Job.Status == JobSuccess }

// JobHostTask is one host's result of a step; ExitCode is a script's.
type JobHostTask struct {
	HostID    int64  `json:"bk_host_id"`
	IP        string `json:"ip"`
	BkCloudID int64  `json:"bk_cloud_id"`
	Status    int    `json:"status"`
	ErrorCode int    `json:"error_code"`
	ExitCode  int    `json:"exit_code"`
}

// OK reports a host whose task succeeded (bk-job ExecuteObjectTaskStatusEnum.isSuccess).
func (t JobHostTask) OK() bool { return t.Status == JobHostSuccess || t.Status == JobHostLastOK }

// JOB's statuses of a host whose script ran and failed: SCRIPT_FAILED,
// SCRIPT_TIMEOUT, SCRIPT_TERMINATE, SCRIPT_NOT_ZERO_EXIT_CODE (bk-job
// ExecuteObjectTaskStatusEnum).
const (
	jobHostScriptFailed   = 101
	jobHostScriptExitCode = 104
)

// ScriptRan reports a host whose script ran and failed: its exit code and
// output say what went wrong.
func (t JobHostTask) ScriptRan() bool {
	return t.Status >= jobHostScriptFailed && t.Status <= jobHostScriptExitCode
}

// JobHostAdvice says what a JOB host status means, as a parenthesis to
// append to it ("" when it says nothing more).
func JobHostAdvice(status int) string {
	switch status {
	case JobHostAgentDown, JobHostNoAgent:
		return " (the GSE agent is down or not installed)"
	case 0:
		return " (no result)"
	}
	return ""
}

// JobInstanceStatus reads a job's state; withHosts asks for per-host
// results. Through the bk-job gateway the API is a GET with a query.
//
// JOB API: get_job_instance_status.
func (s *JobService) JobInstanceStatus(ctx context.Context, scope JobScope, id int64, withHosts bool) (*JobStatus, error) {
	c := s.client
	var out JobStatus
	if c.job != nil {
		q := url.Values{"job_instance_id": {strconv.FormatInt(id, 10)}, "return_ip_result": {strconv.FormatBool(withHosts)}}
		for k, v := range scope.fields() {
			q.Set(k, fmt.Sprint(v))
		}
		target, root := c.jobRoute("get_job_instance_status")
		_, err := c.post(ctx, "get_job_instance_status", target, root, q, &out, true)
		return &out, err
	}
	err := c.jobCall(ctx, "get_job_instance_status", scope, map[string]any{"job_instance_id": id, "return_ip_result": withHosts}, &out, true)
	return &out, err
}

// WaitJob polls a job until it finishes and returns its status. A job that
// succeeded succeeded on every host (RunStatusEnum: a step is SUCCESS only
// when all its hosts are), so its per-host results are read, with
// return_ip_result, only when it did not: a push costs its submit and its
// polls, as GSEKit's (collections/configfile.py
// request_get_job_instance_status). Succeeded says which.
func (s *JobService) WaitJob(ctx context.Context, scope JobScope, id int64) (*JobStatus, error) {
	return s.waitJob(ctx, scope, id, false)
}

// waitJob polls job id until it finishes, on the learned schedule of JOB
// jobs, and reads its per-host results when hosts is set or it failed.
func (s *JobService) waitJob(ctx context.Context, scope JobScope, id int64, hosts bool) (*JobStatus, error) {
	sched := s.client.jobPoll.schedule(true)
	for {
		if err := sched.Next(ctx); err != nil {
			return nil, fmt.Errorf("get_job_instance_status: job %d of %s not finished: %w", id, scope, err)
		}
		st, err := s.JobInstanceStatus(ctx, scope, id, false)
		if err != nil {
			return nil, err
		}
		sched.Saw(st.Finished)
		if !st.Finished {
			continue
		}
		if st.Succeeded() && !hosts {
			return st, nil
		}
		return s.JobInstanceStatus(ctx, scope, id, true)
	}
}

// ScriptLogs reads each target host's output of a script run, by
// bk_host_id, 500 hosts a request, each from the job that ran on it.
//
// JOB API: batch_get_job_instance_ip_log.
func (s *JobService) ScriptLogs(ctx context.Context, scope JobScope, run *ScriptRun, hostIDs []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(hostIDs))
	if len(run.parts) == 1 {
		p := run.parts[0]
		return out, s.scriptLogs(ctx, scope, p.job, p.step, hostIDs, out)
	}
	return out, s.partLogs(ctx, scope, run, hostIDs, out)
}

// scriptLogs reads the output of step on hostIDs into out.
func (s *JobService) scriptLogs(ctx context.Context, scope JobScope, job, step int64, hostIDs []int64, out map[int64]string) error {
	for start := 0; start < len(hostIDs); start += jobLogHostsPerRead {
		part := hostIDs[start:min(start+jobLogHostsPerRead, len(hostIDs))]
		var reply struct {
			Logs []struct {
				HostID  int64  `json:"bk_host_id"`
				Content string `json:"log_content"`
			} `json:"script_task_logs"`
		}
		if err := s.client.jobCall(ctx, "batch_get_job_instance_ip_log", scope, map[string]any{
			"job_instance_id": job, "step_instance_id": step, "host_id_list": part,
		}, &reply, true); err != nil {
			return err
		}
		for _, l := range reply.Logs {
			out[l.HostID] = l.Content
		}
	}
	return nil
}
