package simulator

import (
	"cmp"
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

const (
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
	rewrite bool               // bk-status-rewrite: the plugins' refusals with HTTP 200
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

// handleGateway is what every gateway API shares, in the order of the
// gateway's plugins: the route (bk-not-found-handler), the request ids
// (bk-request-id), the credentials (bk-auth-verify, bk-auth-validate), the
// tenant (bk-tenant-validate), the app's rate on the stage
// (bk-stage-rate-limit); then the backend, whose reply passes as it is.
// dispatch answers the body.
func (s *Server) handleGateway(r *http.Request, api string, raw []byte, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	return s.handleGatewayFor(r, api, raw, false, dispatch)
}

// handleGatewayFor is handleGateway for a resource that needs a verified
// user (userVerifiedRequired) when verified is true.
func (s *Server) handleGatewayFor(r *http.Request, api string, raw []byte, verified bool, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[api]++
	if s.lacks(api) {
		// The operator's root route: no request-id plugin, no status rewrite.
		return gatewayError(codeGatewayNotFound, [2]string{"method", r.Method}, [2]string{"path", r.URL.Path})
	}
	var rep reply
	var quota http.Header
	if limit := cmp.Or(s.opts.GatewayBodyLimit, 32<<20); len(raw) > limit {
		rep = gatewayError(1641301, [2]string{"reason", fmt.Sprintf("request body size %d exceeds the limit %d", len(raw), limit)})
	} else if refused := s.gatewayFront(r, raw, verified); refused != nil {
		rep = *refused
	} else if over, header := s.overQuota(r, raw); over {
		rep, quota = gatewayError(codeGatewayStageLimit), header
	} else if f := s.takeFault(api); f != nil && !f.acts() {
		rep, quota = f.reply(api, raw, reply{}, true), header
	} else {
		rep, quota = s.answerGateway(api, raw, dispatch), header
		if f != nil {
			rep = f.reply(api, raw, rep, true)
		}
	}
	if rep.shape == shapeGateway && s.gw.rewrite && rep.code != codeGatewayBadGateway && rep.code != codeGatewayTimeout {
		rep.status = http.StatusOK // upstream errors keep theirs: nginx sets it after the plugins ran
	}
	if rep.header == nil {
		rep.header = http.Header{}
	}
	for k, v := range quota {
		rep.header[k] = v
	}
	// bk-request-id.lua: a fresh X-Bkapi-Request-ID replaces the client's;
	// X-Request-ID is the client's, or the same id without dashes.
	id := newUUID()
	rep.header.Set("X-Bkapi-Request-Id", id)
	rep.header.Set("X-Request-Id", cmp.Or(r.Header.Get("X-Request-Id"), strings.ReplaceAll(id, "-", "")))
	return rep
}

// gatewayFront is the refusal of the gateway's plugins in front of the
// backend, or nil: the credentials, then the tenant.
func (s *Server) gatewayFront(r *http.Request, raw []byte, verified bool) *reply {
	if err := s.authenticateGateway(r.Header.Get("X-Bkapi-Authorization"), verified); err != nil {
		return err
	}
	if t := s.opts.TenantID; t != "" && r.Header.Get("X-Bk-Tenant-Id") != t {
		reason := "Cross-tenant calls are not allowed: header X-Bk-Tenant-Id is required and should not be empty. the app " + appOf(r, raw) + " tenant_mode=global. [AH1]"
		if h := r.Header.Get("X-Bk-Tenant-Id"); h != "" {
			reason = "Cross-tenant calls are not allowed: gateway belongs to tenant " + t + ", header tenant_id is " + h + ". [GH]"
		}
		rep := gatewayError(codeGatewayForbidden, [2]string{"reason", reason})
		return &rep
	}
	return nil
}

// answerGateway is the backend's reply: GSE 2.0 takes credentials only from
// the header, and its envelope has no result.
func (s *Server) answerGateway(api string, raw []byte, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	fail := func(e *apiError) reply {
		return reply{status: http.StatusOK, code: e.code, msg: e.msg, shape: shapeBackend}
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
	return reply{status: http.StatusOK, msg: "success", data: data, shape: shapeBackend}
}

// gatewayRequest answers a GSE 2.0 request.
func (s *Server) gatewayRequest(api string, raw []byte) (any, *apiError) {
	var req request
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, &apiError{codeGatewayParams, "the body does not match " + api + ": " + err.Error()}
	}
	return s.dispatchGateway(api, &req)
}

// authenticateGateway is bk-auth-verify and bk-auth-validate: the app,
// then the user; every refusal 400 1640001 with its reason. bk_username is
// never a verified user: on a resource that needs one (verified, such as
// bk-job's user APIs) it is refused; elsewhere it passes for apps the
// gateway exempts (every app here, unless Options.VerifiedUsersOnly).
func (s *Server) authenticateGateway(header string, verified bool) *reply {
	fail := func(reason string) *reply { rep := gatewayInvalidArgs(reason); return &rep }
	var creds auth
	if header != "" && json.Unmarshal([]byte(header), &creds) != nil {
		return fail("request header X-Bkapi-Authorization is not a valid JSON")
	}
	switch {
	case creds.AccessToken != "":
		if s.opts.AccessToken != "" && creds.AccessToken != s.opts.AccessToken {
			// bkauth's answer for a token it does not know is not in the
			// gateway's code; the expired one is.
			return fail("access_token has expired")
		}
		return nil
	case creds.AppCode == "":
		return fail("app code cannot be empty")
	case s.opts.AppCode != "" && creds.AppCode != s.opts.AppCode:
		return fail("app not found")
	case creds.AppSecret == "":
		return fail("please provide bk_app_secret or bk_signature to verify app")
	case s.opts.AppSecret != "" && creds.AppSecret != s.opts.AppSecret:
		return fail("bk_app_code or bk_app_secret is incorrect")
	case creds.BkToken != "":
		return nil
	case creds.Username == "":
		return fail("user authentication failed, please provide a valid user identity, such as bk_username, bk_token, access_token")
	case s.opts.VerifiedUsersOnly || verified:
		return fail("user authentication failed, the user indicated by bk_username is not verified")
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
	return nil, &apiError{codeGatewayNotFound, fmt.Sprintf("unknown API %q", api)}
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
