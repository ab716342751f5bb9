package simulator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// GSE 2.0 through the BlueKing API gateway (BlueKing's GSE 2.0 API docs): /api/v2/proc/{api}
// and /api/v2/cluster/list_agent_state, hosts addressed by agent id,
// credentials only in X-Bkapi-Authorization, replies without "result", the
// gateway's own error codes with their HTTP statuses (or 200 where the
// gateway rewrites statuses). Calls and faults are counted under the bare API
// name, so the ESB knobs (Fault, HostFault by ip) work here too.

// Gateway codes the simulator answers with. Which of 1640100-1640102 the real
// gateway picks for each credential problem is not documented: these are
// the simulator's choice, and so is 1640001 for a wrong tenant.
const (
	codeGatewayParams   = 1640001
	codeGatewayBadAuth  = 1640100 // X-Bkapi-Authorization missing or not JSON
	codeGatewayBadApp   = 1640101 // the app (or access token) is not valid
	codeGatewayNoUser   = 1640102 // no user: neither bk_username nor bk_token
	codeNoAgents        = 1011003 // list_agent_state: none of the agents exists
	hostAgentAbnormal   = 117
	agentRunning        = 2
	maxAgentsPerRequest = 1000
)

type agent struct {
	cloud int64
	ip    string
}

type gatewayKnobs struct {
	agents  map[string]agent   // agent ids registered with AddAgent
	ofHost  map[procKey]string // the agent registered for each host (keyOf with namespace and name empty)
	states  map[string]int     // status_code per agent (normalized id); absent = 2 (running)
	rewrite bool               // answer gateway errors with HTTP 200
}

// AddAgent registers a GSE 2.0 agent id for the host cloud:ip. Agents in the
// {bk_cloud_id}:{ip} form exist without registration (agent-id mode off).
func (s *Server) AddAgent(id string, cloud int64, ip string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addAgentLocked(id, cloud, ip)
}

func (s *Server) addAgentLocked(id string, cloud int64, ip string) {
	s.gw.agents[id] = agent{cloud, ip}
	s.gw.ofHost[keyOf("", "", cloud, ip)] = id
}

// SetAgentState sets the status_code list_agent_state reports for an agent
// (2 running; 0 init, 3 damaged, -1 unknown, ...). Operations and
// update_proc_info on a host whose agent is not running answer 115 forever,
// and get_proc_status_v2 leaves it out (the simulator's choice: an absent
// entry, which a client must not take for "not registered").
func (s *Server) SetAgentState(id string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gw.states[normalAgent(id)] = code
}

// SetGatewayStatusRewrite makes the gateway answer its errors with HTTP 200
// (the code stays in the body and X-Bkapi-Error-Code), as some stages do.
func (s *Server) SetGatewayStatusRewrite(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gw.rewrite = on
}

// normalAgent puts a {cloud}:{ip} agent id's IP in canonical form.
func normalAgent(id string) string {
	if cloud, ip, ok := strings.Cut(id, ":"); ok {
		if a, err := netip.ParseAddr(ip); err == nil {
			return cloud + ":" + a.String()
		}
	}
	return id
}

// lookupAgent resolves an agent id to its host.
func (s *Server) lookupAgent(id string) (agent, bool) {
	if a, ok := s.gw.agents[id]; ok {
		return a, true
	}
	cloud, ip, ok := strings.Cut(id, ":")
	if !ok {
		return agent{}, false
	}
	n, err := strconv.ParseInt(cloud, 10, 64)
	if _, ipErr := netip.ParseAddr(ip); err != nil || ipErr != nil {
		return agent{}, false
	}
	return agent{n, ip}, true
}

// agentOf is the agent id of p's host, as status entries name it: the agent
// registered for the host (AddAgent), else {bk_cloud_id}:{ip} (agent-id mode
// off). An entry names its host's agent, also when the host was asked for as
// {bk_cloud_id}:{ip} (the simulator's reading: the entry describes the
// process on that agent).
func (s *Server) agentOf(p *Process) string {
	if _, ok := s.gw.agents[p.AgentID]; ok {
		return p.AgentID
	}
	if id, ok := s.gw.ofHost[keyOf("", "", p.BkCloudID, p.IP)]; ok {
		return id
	}
	return fmt.Sprintf("%d:%s", p.BkCloudID, p.IP)
}

func (s *Server) agentState(id string) int {
	if c, ok := s.gw.states[normalAgent(id)]; ok {
		return c
	}
	return agentRunning
}

// target is one host of a request and its result key; agentFault is set
// when its agent is unknown or down, so nothing may happen on it.
type target struct {
	host       wireHost
	key        string
	agent      string // the agent id as sent (gateway requests)
	agentFault *hostResult
}

// targets are the hosts of req with their result keys.
func (s *Server) targets(req *request, gw, v1 bool) []target {
	ns, name := req.Meta.Namespace, req.Meta.Name
	var out []target
	if !gw {
		for _, h := range req.Hosts {
			key := fmt.Sprintf("%d:%s:%s:%s", h.BkCloudID, h.IP, ns, name)
			if v1 {
				key = fmt.Sprintf("%d:%d:%s:%s:%s", h.BkCloudID, h.BkSupplierID, h.IP, ns, name)
			}
			out = append(out, target{host: h, key: key})
		}
		return out
	}
	for _, id := range req.Agents {
		tg := target{key: id + ":" + ns + ":" + name, agent: id}
		a, ok := s.lookupAgent(id)
		switch {
		case !ok:
			tg.agentFault = &hostResult{ErrorCode: hostAgentAbnormal, ErrorMsg: "agent " + id + " not found"}
		case s.agentState(id) != agentRunning:
			tg.agentFault = &hostResult{ErrorCode: hostPending, ErrorMsg: "processing"} // a down agent never answers
		}
		tg.host = wireHost{IP: a.ip, BkCloudID: a.cloud}
		out = append(out, tg)
	}
	return out
}

func validateAgents(ids []string) *apiError {
	if len(ids) == 0 {
		return &apiError{codeGatewayParams, "agent_id_list must not be empty"}
	}
	if len(ids) > maxAgentsPerRequest {
		return &apiError{codeGatewayParams, fmt.Sprintf("agent_id_list holds %d agent ids, at most %d are allowed", len(ids), maxAgentsPerRequest)}
	}
	for _, id := range ids {
		if id == "" || len(id) > 64 {
			return &apiError{codeGatewayParams, fmt.Sprintf("agent id %q must be 1 to 64 characters", id)}
		}
	}
	return nil
}

// gatewaySpec checks a gateway spec: monitor_policy (the 2.0 name) or alive_monitor_policy.
func gatewaySpec(raw json.RawMessage) *apiError {
	sp, err := parseIdentity(raw)
	if err != nil {
		return err
	}
	if sp.MonitorPolicy == nil && sp.AliveMonitorPolicy == nil {
		return badParams("spec.monitor_policy is required")
	}
	return nil
}

// upsert creates or updates the process of a gateway request on tg's host.
func (s *Server) upsert(k procKey, req request, tg target) *Process {
	p, ok := s.procs[k]
	if !ok {
		p = &Process{Namespace: req.Meta.Namespace, Name: req.Meta.Name, IP: tg.host.IP, BkCloudID: tg.host.BkCloudID, PID: -1, RegisterTime: time.Now().Unix()}
		s.procs[k] = p
	}
	p.AgentID, p.Labels = tg.agent, req.Meta.Labels
	if sp, err := parseIdentity(req.Spec); err == nil {
		p.Spec = append(json.RawMessage(nil), req.Spec...)
		p.ProcName, p.SetupPath = sp.Identity.ProcName, sp.Identity.SetupPath
	}
	return p
}

func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	s.handleGateway(r, r.PathValue("api"), raw, s.gatewayRequest).write(w, r)
}

// handleGateway is what every gateway API shares (counts, faults, tenant,
// credentials, the gateway's HTTP statuses); dispatch answers the body.
func (s *Server) handleGateway(r *http.Request, api string, raw []byte, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[api]++
	var rep reply
	var f *Fault
	refused := s.admit(r, raw, api, true)
	if refused == nil {
		f = s.takeFault(api)
	}
	switch {
	case refused != nil:
		rep = *refused
	case f != nil && !f.acts():
		rep = f.reply(raw, reply{})
	default:
		rep = s.answerGateway(r, api, raw, dispatch)
		if f != nil {
			rep = f.reply(raw, rep)
		}
	}
	rep.noResult = true
	if rep.code != 0 {
		if st := gatewayStatus(rep.code); st != 0 && rep.status == http.StatusOK {
			rep.status = st
		}
		if s.gw.rewrite {
			rep.status = http.StatusOK
		}
		if rep.header == nil {
			rep.header = http.Header{}
		}
		if rep.header.Get("X-Bkapi-Error-Message") == "" {
			rep.header.Set("X-Bkapi-Error-Message", rep.msg)
		}
	}
	return rep
}

// gatewayStatus is the HTTP status the gateway sends with its own codes (0: none).
func gatewayStatus(code int) int {
	switch {
	case code == codeGatewayParams:
		return http.StatusBadRequest
	case code >= 1640100 && code <= 1640102:
		return http.StatusUnauthorized
	case code >= 1640301 && code <= 1640304:
		return http.StatusForbidden
	case code == 1641301:
		return http.StatusRequestEntityTooLarge
	case code >= 1642901 && code <= 1642904:
		return http.StatusTooManyRequests
	case code == 1650201:
		return http.StatusBadGateway
	case code == 1650401:
		return http.StatusGatewayTimeout
	}
	return 0
}

func (s *Server) answerGateway(r *http.Request, api string, raw []byte, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	fail := func(e *apiError) reply { return reply{status: http.StatusOK, code: e.code, msg: e.msg} }
	if t := s.opts.TenantID; t != "" && r.Header.Get("X-Bk-Tenant-Id") != t {
		return fail(&apiError{codeGatewayParams, fmt.Sprintf("X-Bk-Tenant-Id %q is not this gateway's tenant", r.Header.Get("X-Bk-Tenant-Id"))})
	}
	if err := s.authenticateGateway(r.Header.Get("X-Bkapi-Authorization")); err != nil {
		return fail(err)
	}
	var creds auth
	if err := json.Unmarshal(raw, &creds); err != nil {
		return fail(&apiError{codeGatewayParams, "the body does not match " + api + ": " + err.Error()})
	}
	if creds != (auth{}) {
		return fail(&apiError{codeGatewayParams, "credentials belong in X-Bkapi-Authorization, not in the body"})
	}
	data, err := dispatch(api, raw)
	if err != nil {
		return fail(err)
	}
	return reply{status: http.StatusOK, msg: "success", data: data}
}

// gatewayRequest answers a GSE 2.0 request.
func (s *Server) gatewayRequest(api string, raw []byte) (any, *apiError) {
	var req request
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, &apiError{codeGatewayParams, "the body does not match " + api + ": " + err.Error()}
	}
	return s.dispatchGateway(api, &req)
}

func (s *Server) authenticateGateway(header string) *apiError {
	if header == "" {
		return &apiError{codeGatewayBadAuth, "X-Bkapi-Authorization is required"}
	}
	var creds auth
	if err := json.Unmarshal([]byte(header), &creds); err != nil {
		return &apiError{codeGatewayBadAuth, "X-Bkapi-Authorization is not a JSON object"}
	}
	if creds.AccessToken != "" {
		if s.opts.AccessToken != "" && creds.AccessToken != s.opts.AccessToken {
			return &apiError{codeGatewayBadApp, "access_token is invalid or expired"}
		}
		return nil
	}
	if creds.AppCode == "" || (s.opts.AppCode != "" && (creds.AppCode != s.opts.AppCode || creds.AppSecret != s.opts.AppSecret)) {
		return &apiError{codeGatewayBadApp, "app code or app secret is invalid"}
	}
	if creds.Username == "" && creds.BkToken == "" {
		return &apiError{codeGatewayNoUser, "one of bk_username or bk_token is required"}
	}
	return nil
}

func (s *Server) dispatchGateway(api string, req *request) (any, *apiError) {
	switch api {
	case "operate_proc_v2":
		return s.submit(api, []request{*req}, true)
	case "operate_proc_multi":
		if len(req.Multi) == 0 {
			return nil, &apiError{codeGatewayParams, "proc_operate_req must not be empty"}
		}
		return s.submit(api, req.Multi, true)
	case "get_proc_operate_result_v2":
		return s.poll(api, req.TaskID)
	case "get_proc_status_v2":
		return s.gatewayStatus(req)
	case "update_proc_info":
		return s.gatewayUpdate(req)
	case "sync_proc_status":
		return s.syncStatus(req, s.agentOf)
	case "list_agent_state":
		return s.listAgentState(req.Agents)
	}
	return nil, &apiError{codeGatewayParams, fmt.Sprintf("unknown API %q", api)}
}

func (s *Server) gatewayStatus(req *request) (any, *apiError) {
	if err := validateTarget(req, true); err != nil {
		return nil, err
	}
	out := []statusEntry{}
	for _, tg := range s.targets(req, true, false) {
		if tg.agentFault != nil {
			continue
		}
		if p, ok := s.procs[keyOf(req.Meta.Namespace, req.Meta.Name, tg.host.BkCloudID, tg.host.IP)]; ok {
			e := entryOf(p, true)
			e.BkAgentID = s.agentOf(p) // see statusEntry
			out = append(out, e)
		}
	}
	return map[string]any{"proc_infos": out}, nil
}

// gatewayUpdate is update_proc_info through the gateway: an upsert of the
// spec, per-agent results keyed {agent_id}:{namespace}:{name}.
func (s *Server) gatewayUpdate(req *request) (any, *apiError) {
	if err := validateTarget(req, true); err != nil {
		return nil, err
	}
	if err := gatewaySpec(req.Spec); err != nil {
		return nil, err
	}
	out := map[string]hostResult{}
	for _, tg := range s.targets(req, true, false) {
		if tg.agentFault != nil {
			out[tg.key] = *tg.agentFault
			continue
		}
		if f := s.takeHostFault("update_proc_info", tg.host.IP, -1); f != nil {
			if !f.Missing {
				out[tg.key] = hostResult{ErrorCode: f.Code, ErrorMsg: f.Message}
			}
			continue
		}
		s.upsert(keyOf(req.Meta.Namespace, req.Meta.Name, tg.host.BkCloudID, tg.host.IP), *req, tg)
		out[tg.key] = hostResult{ErrorMsg: "success"}
	}
	return out, nil
}

type agentStateEntry struct {
	BkAgentID  string `json:"bk_agent_id"`
	BkCloudID  int64  `json:"bk_cloud_id"`
	StatusCode int    `json:"status_code"`
	Version    string `json:"version"`
}

func (s *Server) listAgentState(ids []string) (any, *apiError) {
	if err := validateAgents(ids); err != nil {
		return nil, err
	}
	out := []agentStateEntry{}
	for _, id := range ids {
		if a, ok := s.lookupAgent(id); ok {
			out = append(out, agentStateEntry{BkAgentID: id, BkCloudID: a.cloud, StatusCode: s.agentState(id), Version: "2.1.6"})
		}
	}
	if len(out) == 0 {
		return nil, &apiError{codeNoAgents, "none of the agents exists"}
	}
	return out, nil
}
