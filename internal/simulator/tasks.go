package simulator

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// task is a submitted operation. Its effects happen at submit; polls reveal
// the results after the configured latency.
type task struct {
	v1      bool // keyed bk_cloud_id:bk_supplier_id:ip:namespace:name, else bk_cloud_id:ip:namespace:name
	job     bool // a JOB task, keyed {setup_path}/{proc_name}:{bk_cloud_id}:{ip}
	polls   int
	latency TaskPolls
	results map[string]hostResult
	open    bool            // counted in Server.openTasks until a poll returns it done
	missing map[string]bool // keys left out of every answer (a HostFault with Missing)
	start   time.Time
	lasts   time.Duration // time-based latency, when set
}

// phase says where a task stands at this poll: 0 unqueued, 1 hosts left out, 2 hosts at 115, 3 done.
func (t *task) phase() int {
	if t.lasts > 0 {
		switch age := time.Since(t.start); {
		case age < t.lasts/3:
			return 0
		case age < t.lasts:
			return 2
		}
		return 3
	}
	switch {
	case t.polls <= t.latency.Unqueued:
		return 0
	case t.polls == t.latency.Unqueued+1 && t.latency.Pending > 0:
		return 1
	case t.polls <= t.latency.Unqueued+t.latency.Pending:
		return 2
	}
	return 3
}

// submit starts an operate task; gw: a gateway request (agent_id_list, keys
// {agent_id}:{namespace}:{name}, the spec creates the process).
func (s *Server) submit(api string, reqs []request, gw bool) (any, *apiError) {
	v1 := api == "operate_proc"
	t := &task{v1: v1, latency: s.opts.TaskPolls, lasts: s.opts.TaskLatency, start: time.Now(), results: map[string]hostResult{}, missing: map[string]bool{}}
	var also []string
	if api == "operate_proc_multi" {
		also = []string{"operate_proc_v2"} // its items are operate_proc_v2 bodies
	}
	rec := TaskRecord{API: api, Items: len(reqs)}
	for i := range reqs {
		req := &reqs[i]
		if err := validateTarget(req, gw); err != nil {
			return nil, err
		}
		if req.OpType == nil {
			return nil, badParams("op_type is required")
		}
		if gw {
			if err := gatewaySpec(req.Spec); err != nil {
				return nil, err
			}
		} else if !v1 {
			if _, err := parseSpec(req.Spec, true); err != nil {
				return nil, err
			}
		}
	}
	for _, req := range reqs {
		for _, tg := range s.targets(&req, gw, v1) {
			key, h := tg.key, tg.host
			rec.Hosts++
			rec.Targets = append(rec.Targets, TaskTarget{Process: req.Meta.Namespace + "/" + req.Meta.Name, Op: *req.OpType, BkCloudID: h.BkCloudID, IP: h.IP})
			if tg.agentFault != nil { // the agent is down or unknown: nothing happens
				t.results[key] = *tg.agentFault
				continue
			}
			f := s.takeHostFault(api, h.IP, *req.OpType, also...)
			switch {
			case f != nil && f.Missing:
				t.missing[key] = true
				t.results[key] = s.operate(req, tg, *req.OpType)
			case f != nil:
				t.results[key] = hostResult{ErrorCode: f.Code, ErrorMsg: f.Message}
			default:
				t.results[key] = s.operate(req, tg, *req.OpType)
			}
		}
	}
	return map[string]string{"task_id": s.logTask(t, rec)}, nil
}

// logTask files a submitted task under a new id and records it in the task log.
func (s *Server) logTask(t *task, rec TaskRecord) string {
	rec.TaskID, rec.Open = s.nextID("GSETASK"), s.openTasks
	t.open = true
	s.openTasks++
	s.tasks[rec.TaskID] = t
	s.taskLog = append(s.taskLog, rec)
	return rec.TaskID
}

// operate applies op to a registered GSE process on one host. Through the
// gateway, the operation's spec is the process's: start (0) or register
// hosting (3) creates a process that is not there.
func (s *Server) operate(req request, tg target, op int) hostResult {
	h := tg.host
	k := keyOf(req.Meta.Namespace, req.Meta.Name, h.BkCloudID, h.IP)
	p, ok := s.procs[k]
	if tg.agent != "" && (ok || op == 0 || op == 3) {
		p = s.upsert(k, req, tg)
		ok = true
	}
	if !ok {
		return hostResult{ErrorCode: codeNotRegistered, ErrorMsg: fmt.Sprintf("process %s/%s is not registered on this host", req.Meta.Namespace, req.Meta.Name)}
	}
	return s.apply(p, op, autoType(req, p))
}

// One-shot processes (auto_type 2, bk-nodeman apps/node_man/constants.py
// GseAutoType.SINGLE_EXECUTION) run and exit: the agent's check after a
// start or restart then finds no process and answers 836 (bk-nodeman
// apps/backend/api/constants.py GseDataErrCode.POST_CHECK_ERROR), which
// bk-nodeman counts as success for exactly that case
// (apps/backend/components/collections/plugin.py
// GseOperateProcService.handle_error_code: "单次执行进程，启动后无需检查进程存活情况").
// The simulator's one-shots all exit before that check.
const (
	autoTypeOneShot = 2
	hostPostCheck   = 836
)

// apply runs op on one process on one host, as the agent would.
func (s *Server) apply(p *Process, op, autoType int) hostResult {
	now := time.Now().Unix()
	start := func() {
		s.seq++
		p.Running, p.PID, p.LastStartTime, p.Version = true, int64(10000+s.seq), now, "1.0.0"
	}
	ranAndExited := func() hostResult {
		p.Running, p.PID = false, -1
		return hostResult{ErrorCode: hostPostCheck, ErrorMsg: "post check failed: the process is not running after the operation"}
	}
	switch op {
	case 0: // start: hosted on success
		p.Hosted = true
		if p.Running {
			return hostResult{ErrorCode: hostAlreadyRunning, ErrorMsg: "process is already running"}
		}
		start()
		if autoType == autoTypeOneShot {
			return ranAndExited()
		}
	case 1, 9: // stop, kill: not hosted afterwards
		p.Hosted = false
		if !p.Running {
			return hostResult{ErrorCode: hostNotRunning, ErrorMsg: "process is not running"}
		}
		p.Running, p.PID = false, -1
	case 2:
		return hostResult{ErrorMsg: "success", Content: statusContent(p)}
	case 3: // register hosting: the agent pulls up a resident process that is down
		p.Hosted = true
		if !p.Running && autoType == 1 {
			start()
		}
	case 4:
		p.Hosted = false
	case 7:
		start()
		p.Restarts++
		if autoType == autoTypeOneShot {
			return ranAndExited()
		}
	case 8:
		if !p.Running {
			return hostResult{ErrorCode: hostNotRunning, ErrorMsg: "process is not running"}
		}
		p.Reloads++
	default:
		return hostResult{ErrorCode: hostUnknownOp, ErrorMsg: fmt.Sprintf("unknown op_type %d", op)}
	}
	return hostResult{ErrorMsg: "success"}
}

// autoType is the hosting type of the operation's spec, else of the registered one.
func autoType(req request, p *Process) int {
	for _, raw := range []json.RawMessage{req.Spec, p.Spec} {
		var sp wireSpec
		if json.Unmarshal(raw, &sp) != nil {
			continue
		}
		if sp.AliveMonitorPolicy != nil {
			return sp.AliveMonitorPolicy.AutoType
		}
		if sp.MonitorPolicy != nil {
			return sp.MonitorPolicy.AutoType
		}
	}
	return 0
}

func statusContent(p *Process) string {
	b, _ := json.Marshal(map[string]any{"process": []any{map[string]any{
		"procname": p.ProcName,
		"instance": []any{map[string]any{"pid": p.PID, "isAuto": p.Hosted, "version": p.Version, "cpuUsage": 0.5, "phyMemUsage": 1.5, "startTime": p.LastStartTime}},
	}}})
	return string(b)
}

func (s *Server) poll(api, id string) (any, *apiError) {
	t, ok := s.tasks[id]
	if !ok || t.job || t.v1 != (api == "get_proc_operate_result") {
		return nil, badParams("task %q not found for %s", id, api)
	}
	results, done, err := t.answer()
	s.closeTask(t, done)
	return results, err
}

// closeTask takes a task polled to completion out of the open count.
func (s *Server) closeTask(t *task, done bool) {
	if done && t.open {
		t.open = false
		s.openTasks--
	}
}

// answer is what one poll of the task sees: 1000115 while it is unqueued,
// then no hosts, then every host at 115, then the results (done).
func (t *task) answer() (map[string]hostResult, bool, *apiError) {
	t.polls++
	switch t.phase() {
	case 0:
		return nil, false, &apiError{codeNotQueued, "task is not queued yet"}
	case 1:
		return map[string]hostResult{}, false, nil // GSE sometimes leaves hosts out for a while
	case 2:
		out := map[string]hostResult{}
		for k := range t.results {
			if !t.missing[k] {
				out[k] = hostResult{ErrorCode: hostPending, ErrorMsg: "processing"}
			}
		}
		return out, false, nil
	}
	if len(t.missing) == 0 {
		return t.results, true, nil
	}
	out := map[string]hostResult{}
	for k, r := range t.results {
		if !t.missing[k] {
			out[k] = r
		}
	}
	return out, false, nil
}

type statusHost struct {
	IP           string `json:"ip"`
	BkCloudID    int64  `json:"bk_cloud_id"`
	BkSupplierID *int64 `json:"bk_supplier_id,omitempty"`
}

// statusEntry is one proc_infos entry. Through the gateway it carries the
// agent id at its top level, never in host: bk-bscp
// internal/components/gse/type.go ProcInfo (get_proc_status_v2) and
// SyncProcInfo (sync_proc_status) read bk_agent_id there, and bk-nodeman
// apps/adapters/api/gse/v2.py GseV2ApiHelper._list_proc_state copies
// proc_info["bk_agent_id"] into proc_info["host"] itself (so host is there too).
type statusEntry struct {
	Meta          wireMeta   `json:"meta"`
	Host          statusHost `json:"host"`
	BkAgentID     string     `json:"bk_agent_id,omitempty"`
	Flag          int        `json:"flag"`
	Status        int        `json:"status"`
	IsAuto        *bool      `json:"isauto,omitempty"`
	PID           int64      `json:"pid"`
	Version       string     `json:"version"`
	RegisterTime  int64      `json:"register_time"`
	LastStartTime int64      `json:"last_start_time"`
	ReportTime    int64      `json:"report_time"`
	CPUUsage      float64    `json:"cpu_usage"`
	MemUsage      float64    `json:"mem_usage"`
	Fd            int64      `json:"fd"`
	Disk          int64      `json:"disk"`
	Net           int64      `json:"net"`
}

func entryOf(p *Process, v2 bool) statusEntry {
	e := statusEntry{
		Meta: wireMeta{Namespace: p.Namespace, Name: p.Name, Labels: p.Labels},
		Host: statusHost{IP: p.IP, BkCloudID: p.BkCloudID},
		Flag: 2, Status: 2, PID: p.PID, Version: p.Version, RegisterTime: p.RegisterTime,
		LastStartTime: p.LastStartTime, ReportTime: time.Now().Unix(),
	}
	if p.Hosted {
		e.Flag = 1
	}
	if p.Running {
		e.Status, e.CPUUsage, e.MemUsage, e.Fd = 1, 0.5, 1.5, 12
	}
	if v2 {
		e.IsAuto = &p.Hosted
	} else {
		e.Host.BkSupplierID = &p.BkSupplierID
	}
	return e
}

func (s *Server) status(api string, req *request) (any, *apiError) {
	if err := validateTarget(req, false); err != nil {
		return nil, err
	}
	out := []statusEntry{}
	for _, h := range req.Hosts {
		if p, ok := s.procs[keyOf(req.Meta.Namespace, req.Meta.Name, h.BkCloudID, h.IP)]; ok {
			out = append(out, entryOf(p, api == "get_proc_status_v2"))
		}
	}
	return map[string]any{"proc_infos": out}, nil
}

// syncStatus answers sync_proc_status; through the gateway agent names each
// entry's agent id (see statusEntry), nil through ESB.
func (s *Server) syncStatus(req *request, agent func(*Process) string) (any, *apiError) {
	if req.Meta.Namespace == "" || req.Page == nil {
		return nil, badParams("meta.namespace and page are required")
	}
	if req.Page.Limit <= 0 || req.Page.Limit > 1000 || req.Page.Start < 0 {
		return nil, badParams("page.limit must be 1 to 1000 and page.start not negative")
	}
	var all []statusEntry
	for _, p := range s.procs {
		if p.Namespace == req.Meta.Namespace {
			e := entryOf(p, true)
			if agent != nil {
				e.BkAgentID = agent(p)
			}
			all = append(all, e)
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		return fmt.Sprint(a.Meta.Name, a.Host.BkCloudID, a.Host.IP) < fmt.Sprint(b.Meta.Name, b.Host.BkCloudID, b.Host.IP)
	})
	page := []statusEntry{}
	if req.Page.Start < len(all) {
		page = all[req.Page.Start:min(len(all), req.Page.Start+req.Page.Limit)]
	}
	return map[string]any{"count": len(all), "proc_infos": page}, nil
}
