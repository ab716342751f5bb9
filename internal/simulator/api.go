package simulator

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Codes the simulator answers with. codeNotRegistered is the simulator's
// choice: GSE's code for operating a process that is not registered is not
// documented publicly.
const (
	codeBadParams     = 1306406
	codeAuth          = 1306401
	codeNoUser        = 1306402
	codeBadAuthHeader = 1640101
	codeNotQueued     = 1000115

	hostPending        = 115
	hostAlreadyRunning = 828
	hostNotRunning     = 829
	hostUnknownOp      = 832
	hostRegistered     = 850
	codeNotRegistered  = 404
)

type wireMeta struct {
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Labels    map[string]string `json:"labels,omitempty"`
}

type wireHost struct {
	IP           string `json:"ip"`
	BkCloudID    int64  `json:"bk_cloud_id"`
	BkSupplierID int64  `json:"bk_supplier_id"`
}

type wireSpec struct {
	Identity struct {
		ProcName  string `json:"proc_name"`
		SetupPath string `json:"setup_path"`
		PidPath   string `json:"pid_path"`
		User      string `json:"user"`
	} `json:"identity"`
	MonitorPolicy *struct {
		AutoType int `json:"auto_type"`
	} `json:"monitor_policy"`
	AliveMonitorPolicy *struct {
		AutoType int `json:"auto_type"`
	} `json:"alive_monitor_policy"`
}

type request struct {
	auth
	Meta   wireMeta                    `json:"meta"`
	Hosts  []wireHost                  `json:"hosts"`
	Agents []string                    `json:"agent_id_list"`
	Spec   json.RawMessage             `json:"spec"`
	OpType *int                        `json:"op_type"`
	TaskID string                      `json:"task_id"`
	Multi  []request                   `json:"proc_operate_req"`
	Page   *struct{ Start, Limit int } `json:"page"`
}

type auth struct {
	AppCode     string `json:"bk_app_code"`
	AppSecret   string `json:"bk_app_secret"`
	Username    string `json:"bk_username"`
	BkToken     string `json:"bk_token"`
	AccessToken string `json:"access_token"`
}

type hostResult struct {
	ErrorCode int    `json:"error_code"`
	ErrorMsg  string `json:"error_msg"`
	Content   string `json:"content"`
}

type apiError struct {
	code int
	msg  string
}

func (e *apiError) Error() string { return e.msg }

func badParams(format string, a ...any) *apiError {
	return &apiError{codeBadParams, fmt.Sprintf(format, a...)}
}

func (s *Server) serveGSE(w http.ResponseWriter, r *http.Request) {
	s.serve(w, r, "", func(api string, raw []byte) (any, *apiError) {
		var req request
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, badParams("the body does not match %s: %v", api, err)
		}
		return s.dispatch(api, &req)
	})
}

// serve is the part every API shares: count the call, inject faults, check
// the credentials; family prefixes the API name in counts and faults ("job/").
// The reply is made under the lock and written after it, so a delayed reply
// holds up no other request.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, family string, dispatch func(api string, raw []byte) (any, *apiError)) {
	raw, _ := io.ReadAll(r.Body)
	s.handle(r, family, r.PathValue("api"), raw, dispatch).write(w, r)
}

func (s *Server) handle(r *http.Request, family, api string, raw []byte, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[family+api]++
	if refused := s.admit(r, raw, family+api, false); refused != nil {
		return *refused
	}
	f := s.takeFault(family + api)
	if f != nil && !f.acts() {
		return f.reply(raw, reply{})
	}
	rep := s.answer(r, api, raw, dispatch)
	if f != nil {
		return f.reply(raw, rep)
	}
	return rep
}

// answer is the reply of a request that reaches the API.
func (s *Server) answer(r *http.Request, api string, raw []byte, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	var creds auth
	if err := json.Unmarshal(raw, &creds); err != nil {
		return reply{status: http.StatusOK, code: codeBadParams, msg: "the body is not a JSON object: " + err.Error()}
	}
	if err := s.authenticate(r, creds); err != nil {
		return reply{status: http.StatusOK, code: err.code, msg: err.msg}
	}
	data, err := dispatch(api, raw)
	if err != nil {
		return reply{status: http.StatusOK, code: err.code, msg: err.msg}
	}
	return reply{status: http.StatusOK, msg: "success", data: data}
}

func (s *Server) authenticate(r *http.Request, body auth) *apiError {
	creds := body
	if h := r.Header.Get("X-Bkapi-Authorization"); h != "" {
		var hdr auth
		if err := json.Unmarshal([]byte(h), &hdr); err != nil {
			return &apiError{codeBadAuthHeader, "X-Bkapi-Authorization is not a JSON object"}
		}
		if creds.AppCode == "" {
			creds = hdr
		}
	}
	if s.opts.AppCode != "" && (creds.AppCode != s.opts.AppCode || creds.AppSecret != s.opts.AppSecret) {
		return &apiError{codeAuth, "app code or app secret is invalid"}
	}
	if creds.Username == "" && creds.BkToken == "" && creds.AccessToken == "" {
		return &apiError{codeNoUser, "one of bk_username, bk_token or access_token is required"}
	}
	return nil
}

func (s *Server) dispatch(api string, req *request) (any, *apiError) {
	switch api {
	case "register_proc_info", "update_proc_info", "unregister_proc_info":
		return s.syncProc(api, req)
	case "operate_proc", "operate_proc_v2":
		return s.submit(api, []request{*req}, false)
	case "operate_proc_multi":
		if len(req.Multi) == 0 {
			return nil, badParams("proc_operate_req must not be empty")
		}
		return s.submit(api, req.Multi, false)
	case "get_proc_operate_result", "get_proc_operate_result_v2":
		return s.poll(api, req.TaskID)
	case "get_proc_status", "get_proc_status_v2":
		return s.status(api, req)
	case "sync_proc_status":
		return s.syncStatus(req, nil)
	}
	return nil, badParams("unknown API %q", api)
}

// validateTarget checks meta and the hosts (gw: agent_id_list).
func validateTarget(req *request, gw bool) *apiError {
	if req.Meta.Namespace == "" || req.Meta.Name == "" {
		return badParams("meta.namespace and meta.name are required")
	}
	if gw {
		return validateAgents(req.Agents)
	}
	if len(req.Hosts) == 0 {
		return badParams("hosts must not be empty")
	}
	for _, h := range req.Hosts {
		if h.IP == "" {
			return badParams("hosts[].ip is required")
		}
	}
	return nil
}

// parseSpec checks a spec; v2 wants alive_monitor_policy, else monitor_policy
// (the gateway takes either: see gatewaySpec).
func parseSpec(raw json.RawMessage, v2 bool) (*wireSpec, *apiError) {
	sp, err := parseIdentity(raw)
	if err != nil {
		return nil, err
	}
	if v2 && sp.AliveMonitorPolicy == nil {
		return nil, badParams("spec.alive_monitor_policy is required")
	}
	if !v2 && sp.MonitorPolicy == nil {
		return nil, badParams("spec.monitor_policy is required")
	}
	return sp, nil
}

func parseIdentity(raw json.RawMessage) (*wireSpec, *apiError) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, badParams("spec is required")
	}
	var sp wireSpec
	if err := json.Unmarshal(raw, &sp); err != nil {
		return nil, badParams("spec: %v", err)
	}
	id := sp.Identity
	if id.ProcName == "" || id.SetupPath == "" || id.PidPath == "" || id.User == "" {
		return nil, badParams("spec.identity needs proc_name, setup_path, pid_path and user")
	}
	return &sp, nil
}

// syncProc serves register / update / unregister: synchronous, per-host results keyed v1.
func (s *Server) syncProc(api string, req *request) (any, *apiError) {
	if err := validateTarget(req, false); err != nil {
		return nil, err
	}
	var sp *wireSpec
	if api != "unregister_proc_info" {
		var err *apiError
		if sp, err = parseSpec(req.Spec, false); err != nil {
			return nil, err
		}
	}
	out := map[string]hostResult{}
	now := time.Now().Unix()
	for _, h := range req.Hosts {
		key := fmt.Sprintf("%d:%d:%s:%s:%s", h.BkCloudID, h.BkSupplierID, h.IP, req.Meta.Namespace, req.Meta.Name)
		if f := s.takeHostFault(api, h.IP, -1); f != nil {
			if !f.Missing {
				out[key] = hostResult{ErrorCode: f.Code, ErrorMsg: f.Message}
			}
			continue
		}
		k := keyOf(req.Meta.Namespace, req.Meta.Name, h.BkCloudID, h.IP)
		p, exists := s.procs[k]
		switch {
		case api == "register_proc_info" && exists:
			out[key] = hostResult{ErrorCode: hostRegistered, ErrorMsg: "process already registered"}
		case api == "unregister_proc_info" && !exists:
			out[key] = hostResult{ErrorCode: hostNotRunning, ErrorMsg: "process not registered"}
		case api == "unregister_proc_info":
			delete(s.procs, k)
			out[key] = hostResult{ErrorMsg: "success"}
		default: // register, or update (an upsert)
			if !exists {
				p = &Process{Namespace: req.Meta.Namespace, Name: req.Meta.Name, IP: h.IP, BkCloudID: h.BkCloudID, PID: -1, RegisterTime: now}
				s.procs[k] = p
			}
			p.BkSupplierID, p.Labels, p.Spec = h.BkSupplierID, req.Meta.Labels, append(json.RawMessage(nil), req.Spec...)
			p.ProcName, p.SetupPath = sp.Identity.ProcName, sp.Identity.SetupPath
			out[key] = hostResult{ErrorMsg: "success"}
		}
	}
	return out, nil
}

// reply is one answer: an envelope, and how a fault delivers it.
type reply struct {
	status, code int
	msg          string
	data         any
	header       http.Header
	delay        time.Duration // hold the reply this long (or until the client gives up)
	cut          bool          // send half the body, then drop the connection
	noResult     bool          // a gateway reply: no "result" field, success is code 0
}

func (rep reply) write(w http.ResponseWriter, r *http.Request) {
	if rep.delay > 0 {
		t := time.NewTimer(rep.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return // the client gave up; the work is done all the same
		}
	}
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	if !rep.cut {
		writeEnvelope(w, rep)
		return
	}
	var buf bytes.Buffer
	writeEnvelope(&bufWriter{h: w.Header(), b: &buf}, rep)
	w.Header().Set("Content-Length", fmt.Sprint(buf.Len()))
	w.WriteHeader(rep.status)
	_, _ = w.Write(buf.Bytes()[:buf.Len()/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler) // net/http closes the connection mid-body
}

// bufWriter renders a reply into a buffer, to be sent cut short.
type bufWriter struct {
	h http.Header
	b *bytes.Buffer
}

func (w *bufWriter) Header() http.Header         { return w.h }
func (w *bufWriter) Write(p []byte) (int, error) { return w.b.Write(p) }
func (w *bufWriter) WriteHeader(int)             {}

func writeEnvelope(w http.ResponseWriter, rep reply) {
	var id [16]byte
	_, _ = rand.Read(id[:])
	w.Header().Set("Content-Type", "application/json")
	if rep.code != 0 {
		w.Header().Set("X-Bkapi-Error-Code", fmt.Sprint(rep.code))
	}
	w.WriteHeader(rep.status)
	env := map[string]any{"code": rep.code, "message": rep.msg, "data": rep.data, "request_id": hex.EncodeToString(id[:])}
	if !rep.noResult {
		env["result"] = rep.code == 0 && rep.status == http.StatusOK
	}
	_ = json.NewEncoder(w).Encode(env)
}
