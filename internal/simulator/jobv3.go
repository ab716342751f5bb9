package simulator

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// JOB's v3 file and script APIs, as bk-job's execute service answers them
// (src/backend/job-execute: EsbPushConfigFileV3ResourceImpl,
// EsbFastExecuteScriptV3ResourceImpl, EsbGetJobInstanceStatusV3ResourceImpl,
// EsbBatchGetJobInstanceIpLogV3ResourceImpl): through ESB
// (/api/c/compapi/v2/jobv3/{api}/, POST) and the bk-job gateway
// (/api/v3/{api}, get_job_instance_status as a GET with a query: the
// gateway's resources.yaml), on the hosts of the CMDB business, which keep
// the files pushed to them. Calls and faults count as "jobv3/{api}".

// JOB's error codes here (bk-job ErrorCode).
const (
	codeJobAccountMissing = 1244003 // the account alias does not exist in the business
	codeJobHostInvalid    = 1244002 // hosts not in the business
	codeJobNotFound       = 1244006 // no such job instance
	codeJobBadRequest     = 1240003
	codeJobFileTasks      = 1244021 // FILE_TASKS_EXCEEDS_LIMIT
	// jobMaxFileTasks is job.execute.limit.file-task.max-tasks (JobExecuteConfig): files × targets.
	jobMaxFileTasks = 100000
)

// accountMissing is ACCOUNT_NOT_EXIST for an alias, as TaskExecuteServiceImpl
// throws it and bk-job's message_en.properties words it.
func accountMissing(alias string) *apiError {
	return &apiError{codeJobAccountMissing, "Account [" + alias + "] does not exist"}
}

// jobAccounts are the execution accounts of every business (an alias each).
var jobAccounts = []string{"root", "Administrator"}

// Host task statuses (ExecuteObjectTaskStatusEnum) and job statuses (RunStatusEnum).
const (
	jobHostAgentDown = 1
	jobHostRunning   = 7
	jobHostSuccess   = 9
	jobRunning       = 2
	jobSuccess       = 3
	jobFail          = 4
)

// JOBv3 is the endpoint of JOB's v3 file and script APIs: the files on
// the CMDB endpoint's hosts, their agents JOB finds down, and the jobs run.
type JOBv3 struct {
	hub     *Server
	cmdb    *CMDB                       // the business whose hosts jobs target
	gse     *GSE                        // the processes running on them (jobv3_health.go)
	files   map[int64]map[string][]byte // by bk_host_id, then the file's full path
	down    map[int64]bool              // hosts whose agent is down
	missing map[int64]map[string]bool   // commands a host lacks, by bk_host_id
	closed  map[int64]map[int]bool      // TCP ports closed although their process runs (SetPortClosed)
	rules   []scriptRule                // scripts that fail (SetScriptFails)
	jobs    map[int64]*jobInstance
	next    int64
	// scriptTargetsMax is job.execute.limit.script-task.max-target-server (job_limits.go).
	scriptTargetsMax int
}

// jobInstance is one job: its hosts' results and logs. A job runs after its
// submit returns: JOB's engine starts the GSE task, then polls GSE for its
// hosts' results until they are all final (bk-job execute engine
// result/ResultHandleManager.java, FileResultHandleTask.java,
// ScriptResultHandleTask.java), so a job lasts at least as long as a GSE
// task: it is finished once the simulator's task latency has passed since
// the submit (TaskLatency), or, without one, at its second status read (a
// job is never done at once).
type jobInstance struct {
	scope string
	step  int64
	hosts []jobHostResult
	reads int
	start time.Time
	lasts time.Duration
}

// finished reports whether a status read now finds the job done; read
// counts the read.
func (job *jobInstance) finished() bool {
	job.reads++
	if job.lasts > 0 {
		return time.Since(job.start) >= job.lasts
	}
	return job.reads > 1
}

type jobHostResult struct {
	host   *CMDBHost
	status int
	exit   int // a script's exit code
	log    string
}

// SetAgentDown makes the agent of the CMDB host id down (true) or up for JOB.
func (j *JOBv3) SetAgentDown(id int64, down bool) {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	j.down[id] = down
}

// SetCommandMissing makes the CMDB host id lack the command cmd (true),
// such as sha256sum, or have it: a script calling it gets the shell's "not
// found" and status 127.
func (j *JOBv3) SetCommandMissing(id int64, cmd string, missing bool) {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	if j.missing[id] == nil {
		j.missing[id] = map[string]bool{}
	}
	j.missing[id][cmd] = missing
}

// JobFile is a file JOB wrote on a host: its full path, size and SHA-256.
type JobFile struct {
	Path   string `json:"path"`
	Size   int    `json:"size"`
	SHA256 string `json:"sha256"`
}

// Files lists the files on the CMDB host id, by path.
func (j *JOBv3) Files(id int64) []JobFile {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	out := []JobFile{}
	for p, b := range j.files[id] {
		out = append(out, JobFile{Path: p, Size: len(b), SHA256: hexSum(b)})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	return out
}

func (j *JOBv3) serveFiles(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, "bk_host_id must be a number", http.StatusBadRequest)
		return
	}
	writeJSON(w, j.Files(id))
}

// File is the file at full path on the CMDB host id, and whether it exists.
func (j *JOBv3) File(id int64, full string) ([]byte, bool) {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	b, ok := j.files[id][full]
	return b, ok
}

// SetFile changes a file on a host out of band, or deletes it (content nil).
func (j *JOBv3) SetFile(id int64, full string, content []byte) {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	if content == nil {
		delete(j.files[id], full)
		return
	}
	j.putFile(id, full, content)
}

func (j *JOBv3) serveSetFile(w http.ResponseWriter, r *http.Request) {
	serveAdmin(w, r, func(req struct {
		HostID  int64   `json:"bk_host_id"`
		Path    string  `json:"path"`
		Content *string `json:"content"` // null deletes the file
	}) error {
		var b []byte
		if req.Content != nil {
			b = []byte(*req.Content)
		}
		j.SetFile(req.HostID, req.Path, b)
		return nil
	})
}

func (j *JOBv3) serve(w http.ResponseWriter, r *http.Request) {
	j.hub.serve(w, r, "jobv3/", j.dispatch)
}

// serveGateway answers the bk-job gateway, whose user APIs need a
// verified user (resources.yaml userVerifiedRequired: true).
func (j *JOBv3) serveGateway(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	if r.Method == http.MethodGet {
		raw = queryBody(r)
	}
	api := r.PathValue("api")
	j.hub.handleGatewayFor(r, "jobv3/"+api, raw, true, func(string, []byte) (any, *apiError) { return j.dispatch(api, raw) }).write(w, r)
}

// queryBody is a GET's query as the JSON body the backend decodes.
func queryBody(r *http.Request) []byte {
	body := map[string]any{}
	for k, v := range r.URL.Query() {
		if n, err := strconv.ParseInt(v[0], 10, 64); err == nil && k != "bk_scope_id" {
			body[k] = n
		} else if b, err := strconv.ParseBool(v[0]); err == nil {
			body[k] = b
		} else {
			body[k] = v[0]
		}
	}
	raw, _ := json.Marshal(body)
	return raw
}

// jobv3Request is what the four APIs decode.
type jobv3Request struct {
	jobRequest
	Path     string `json:"file_target_path"`
	Account  string `json:"account_alias"`
	FileList []struct {
		Name    string `json:"file_name"`
		Content string `json:"content"`
	} `json:"file_list"`
	Target *struct {
		HostIDs []int64 `json:"host_id_list"`
		IPs     []struct {
			Cloud int64  `json:"bk_cloud_id"`
			IP    string `json:"ip"`
		} `json:"ip_list"`
	} `json:"target_server"`
	Script     string  `json:"script_content"`
	Language   int     `json:"script_language"`
	JobID      int64   `json:"job_instance_id"`
	StepID     int64   `json:"step_instance_id"`
	WithHosts  bool    `json:"return_ip_result"`
	LogHostIDs []int64 `json:"host_id_list"`
}

func (j *JOBv3) dispatch(api string, raw []byte) (any, *apiError) {
	if tooLongString(raw) {
		return nil, &apiError{codeJobBadRequest, "Bad Request"}
	}
	var req jobv3Request
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, &apiError{codeJobBadRequest, "Bad Request"}
	}
	scope, ok := req.scope()
	if !ok {
		return nil, illegalParam()
	}
	switch api {
	case "push_config_file":
		return j.pushConfigFile(scope, &req)
	case "fast_execute_script":
		return j.executeScript(scope, &req)
	case "get_job_instance_status":
		return j.instanceStatus(scope, &req)
	case "batch_get_job_instance_ip_log":
		return j.logs(scope, &req)
	}
	return nil, &apiError{codeComponentNotFound, "Not found, component class not found, jobv3/" + api}
}

// targets resolves target_server in the business: host_id_list when
// present (ip_list is then ignored: JobExecuteCommonV3Processor
// convertToServersDTO), else ip_list; none → ILLEGAL_PARAM as
// push_config_file answers it; hosts outside the business → 1244002.
func (j *JOBv3) targets(scope string, req *jobv3Request) ([]*CMDBHost, *apiError) {
	biz, _ := strconv.ParseInt(strings.TrimPrefix(scope, "biz:"), 10, 64)
	if req.Target == nil || len(req.Target.HostIDs) == 0 && len(req.Target.IPs) == 0 {
		return nil, illegalParam()
	}
	var out []*CMDBHost
	var missing []string
	find := func(match func(h *CMDBHost) bool, name string) {
		i := slices.IndexFunc(j.cmdb.hosts, func(h *CMDBHost) bool { return h.BizID == biz && match(h) })
		if i < 0 {
			missing = append(missing, name)
			return
		}
		out = append(out, j.cmdb.hosts[i])
	}
	if len(req.Target.HostIDs) > 0 {
		for _, id := range req.Target.HostIDs {
			find(func(h *CMDBHost) bool { return h.ID == id }, strconv.FormatInt(id, 10))
		}
	} else {
		for _, ip := range req.Target.IPs {
			find(func(h *CMDBHost) bool { return h.CloudID == ip.Cloud && h.firstIPv4() == ip.IP }, fmt.Sprintf("%d:%s", ip.Cloud, ip.IP))
		}
	}
	if len(missing) > 0 {
		return nil, &apiError{codeJobHostInvalid, "Hosts are invalid: " + strings.Join(missing, ",")}
	}
	return out, nil
}

// pushConfigFile is EsbPushConfigFileResourceV3Impl: every check that fails
// answers ILLEGAL_PARAM alone (the field only logged), among them a blank
// file name or content (StringUtils.isBlank of the Base64, so only empty
// content: whitespace has a Base64 of letters); the file name's directory
// part is dropped and the rest trimmed (FilePathUtils.getPureFileName); the
// bytes are written as decoded, on each host whose agent is up.
func (j *JOBv3) pushConfigFile(scope string, req *jobv3Request) (any, *apiError) {
	if strings.TrimSpace(req.Path) == "" || len(req.FileList) == 0 {
		return nil, illegalParam()
	}
	for _, f := range req.FileList {
		if strings.TrimSpace(f.Name) == "" || strings.TrimSpace(f.Content) == "" {
			return nil, illegalParam()
		}
	}
	if !slices.Contains(jobAccounts, req.Account) {
		return nil, accountMissing(req.Account)
	}
	hosts, err := j.targets(scope, req)
	if err != nil {
		return nil, err
	}
	if len(hosts)*len(req.FileList) > jobMaxFileTasks {
		return nil, &apiError{codeJobFileTasks, fmt.Sprintf("File tasks exceed the limit %d", jobMaxFileTasks)}
	}
	job := j.newJob(scope)
	for _, h := range hosts {
		res := jobHostResult{host: h, status: jobHostSuccess}
		if j.down[h.ID] {
			res.status = jobHostAgentDown
		} else {
			for _, f := range req.FileList {
				b, _ := base64.StdEncoding.DecodeString(f.Content)
				j.putFile(h.ID, joinJobPath(req.Path, pureFileName(f.Name)), b)
			}
		}
		job.hosts = append(job.hosts, res)
	}
	return map[string]any{"job_instance_id": j.next, "job_instance_name": "API_PUSH_CONFIG_FILE"}, nil
}

// putFile writes a file on a host; the hub's lock held.
func (j *JOBv3) putFile(id int64, full string, b []byte) {
	if j.files[id] == nil {
		j.files[id] = map[string][]byte{}
	}
	j.files[id][full] = b
}

// pureFileName is FilePathUtils.getPureFileName: after the last / or \,
// trimmed as Java's String.trim trims (every character up to U+0020).
func pureFileName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimFunc(name, func(r rune) bool { return r <= ' ' })
}

// joinJobPath is a directory and a file name as the agent writes them.
func joinJobPath(dir, name string) string {
	if strings.Contains(dir, `\`) {
		return strings.TrimRight(dir, `\`) + `\` + name
	}
	return path.Join(dir, name)
}

func (j *JOBv3) newJob(scope string) *jobInstance {
	j.next++
	job := &jobInstance{scope: scope, step: j.next*10 + 1, start: time.Now(), lasts: j.hub.opts.TaskLatency}
	j.jobs[j.next] = job
	return job
}

func (j *JOBv3) executeScript(scope string, req *jobv3Request) (any, *apiError) {
	raw, err := base64.StdEncoding.DecodeString(req.Script)
	if err != nil || len(raw) == 0 {
		return nil, &apiError{codeJobBadRequest, "script_content is invalid"}
	}
	if !slices.Contains(jobAccounts, req.Account) {
		return nil, accountMissing(req.Account)
	}
	hosts, apiErr := j.targets(scope, req)
	if apiErr != nil {
		return nil, apiErr
	}
	if apiErr := j.checkScriptTargets(len(hosts)); apiErr != nil {
		return nil, apiErr
	}
	lang := req.Language
	if lang == 0 {
		lang = scriptShell // the request's default (EsbFastExecuteScriptV3Request)
	}
	var running map[procKey][]string
	runningOnce := func() map[procKey][]string {
		if running == nil {
			running = j.gse.runningByHost()
		}
		return running
	}
	job := j.newJob(scope)
	for _, h := range hosts {
		res := jobHostResult{host: h, status: jobHostSuccess}
		if j.down[h.ID] {
			res.status = jobHostAgentDown
		} else if res.exit, res.log = j.runScript(h, lang, string(raw), runningOnce); res.exit != 0 {
			res.status = jobHostScriptFailed
		}
		job.hosts = append(job.hosts, res)
	}
	return map[string]any{"job_instance_id": j.next, "job_instance_name": "FAST_EXECUTE_SCRIPT", "step_instance_id": job.step}, nil
}

// instanceStatus is EsbGetJobInstanceStatusV3ResourceImpl: finished once the
// job has run (jobInstance.finished), the host results only with
// return_ip_result.
func (j *JOBv3) instanceStatus(scope string, req *jobv3Request) (any, *apiError) {
	job := j.jobs[req.JobID]
	if job == nil || job.scope != scope {
		return nil, &apiError{codeJobNotFound, "Job instance does not exist"}
	}
	finished := job.finished()
	status := jobRunning
	if finished {
		status = jobSuccess
		if slices.ContainsFunc(job.hosts, func(h jobHostResult) bool { return h.status != jobHostSuccess }) {
			status = jobFail
		}
	}
	step := map[string]any{"step_instance_id": job.step, "status": status, "type": 1}
	if req.WithHosts {
		var hosts []map[string]any
		for _, h := range job.hosts {
			hs := h.status
			if !finished {
				hs = jobHostRunning
			}
			hosts = append(hosts, map[string]any{"bk_host_id": h.host.ID, "ip": h.host.firstIPv4(), "bk_cloud_id": h.host.CloudID, "status": hs, "error_code": 0, "exit_code": h.exit})
		}
		step["step_ip_result_list"] = hosts
	}
	return map[string]any{"finished": finished, "job_instance": map[string]any{"job_instance_id": req.JobID, "status": status},
		"step_instance_list": []any{step}}, nil
}

// logs is EsbBatchGetJobInstanceIpLogV3ResourceImpl: at most 500 hosts a request.
func (j *JOBv3) logs(scope string, req *jobv3Request) (any, *apiError) {
	job := j.jobs[req.JobID]
	if len(req.LogHostIDs) == 0 || len(req.LogHostIDs) > 500 {
		return nil, &apiError{1241007, "host_id_list/ip_list"}
	}
	if job == nil || job.scope != scope || job.step != req.StepID {
		return nil, &apiError{codeJobNotFound, "Step instance does not exist"}
	}
	var logs []map[string]any
	for _, h := range job.hosts {
		if slices.Contains(req.LogHostIDs, h.host.ID) {
			logs = append(logs, map[string]any{"bk_host_id": h.host.ID, "bk_cloud_id": h.host.CloudID, "log_content": h.log})
		}
	}
	return map[string]any{"job_instance_id": req.JobID, "step_instance_id": req.StepID, "log_type": 1, "script_task_logs": logs}, nil
}
