package simulator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
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

// Gateway is the endpoint of GSE 2.0 through the API gateway: the agents it
// knows and their states, over the GSE endpoint's processes (the same
// processes, whichever door a client takes).
type Gateway struct {
	hub    *Server
	gse    *GSE
	agents map[string]agent   // agent ids registered with AddAgent
	ofHost map[procKey]string // the agent registered for each host (keyOf with namespace and name empty)
	states map[string]int     // status_code per agent (normalized id); absent = 2 (running)
}

type agent struct {
	cloud int64
	ip    string
}

// AddAgent registers a GSE 2.0 agent id for the host cloud:ip. Agents in the
// {bk_cloud_id}:{ip} form exist without registration (agent-id mode off).
func (gw *Gateway) AddAgent(id string, cloud int64, ip string) {
	gw.hub.mu.Lock()
	defer gw.hub.mu.Unlock()
	gw.addAgent(id, cloud, ip)
}

// addAgent is AddAgent with the hub's lock held (or before it serves).
func (gw *Gateway) addAgent(id string, cloud int64, ip string) {
	gw.agents[id] = agent{cloud, ip}
	gw.ofHost[keyOf("", "", cloud, ip)] = id
}

// SetAgentState sets the status_code list_agent_state reports for an agent
// (2 running; 0 init, 3 damaged, -1 unknown, ...). Operations and
// update_proc_info on a host whose agent is not running answer 115 forever,
// and get_proc_status_v2 leaves it out (the simulator's choice: an absent
// entry, which a client must not take for "not registered").
func (gw *Gateway) SetAgentState(id string, code int) {
	gw.hub.mu.Lock()
	defer gw.hub.mu.Unlock()
	gw.states[normalAgent(id)] = code
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
func (gw *Gateway) lookupAgent(id string) (agent, bool) {
	if a, ok := gw.agents[id]; ok {
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
func (gw *Gateway) agentOf(p *Process) string {
	if _, ok := gw.agents[p.AgentID]; ok {
		return p.AgentID
	}
	return gw.hostAgent(p.BkCloudID, p.IP)
}

// hostAgent is the agent registered for the host (AddAgent), else
// {bk_cloud_id}:{ip}.
func (gw *Gateway) hostAgent(cloud int64, ip string) string {
	if id, ok := gw.ofHost[keyOf("", "", cloud, ip)]; ok {
		return id
	}
	return fmt.Sprintf("%d:%s", cloud, ip)
}

func (gw *Gateway) agentState(id string) int {
	if c, ok := gw.states[normalAgent(id)]; ok {
		return c
	}
	return agentRunning
}

// validate is the gateway's check of a request's meta and agents (Gateway is the gateway door).
func (gw *Gateway) validate(req *request) *apiError {
	if err := validateMeta(req); err != nil {
		return err
	}
	return validateAgents(req.Agents)
}

// checkSpec is gatewaySpec: every gateway operation carries the process's spec.
func (gw *Gateway) checkSpec(req *request, _ bool) *apiError { return gatewaySpec(req.Spec) }

// targets are the agents of a gateway request with their result keys
// {agent_id}:{namespace}:{name}.
func (gw *Gateway) targets(req *request, _ bool) []target {
	ns, name := req.Meta.Namespace, req.Meta.Name
	var out []target
	for _, id := range req.Agents {
		tg := target{key: id + ":" + ns + ":" + name, agent: id}
		a, ok := gw.lookupAgent(id)
		switch {
		case !ok:
			tg.agentFault = &hostResult{ErrorCode: hostAgentAbnormal, ErrorMsg: "agent " + id + " not found"}
		case gw.agentState(id) != agentRunning:
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

func (gw *Gateway) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	gw.hub.handleGateway(r, r.PathValue("api"), raw, gw.request).write(w, r)
}

// request answers a GSE 2.0 request.
func (gw *Gateway) request(api string, raw []byte) (any, *apiError) {
	var req request
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, &apiError{codeGatewayParams, "the body does not match " + api + ": " + err.Error()}
	}
	return gw.dispatch(api, &req)
}

func (gw *Gateway) dispatch(api string, req *request) (any, *apiError) {
	switch api {
	case "operate_proc_v2":
		return gw.gse.submit(api, []request{*req}, gw)
	case "operate_proc_multi":
		if len(req.Multi) == 0 {
			return nil, &apiError{codeGatewayParams, "proc_operate_req must not be empty"}
		}
		return gw.gse.submit(api, req.Multi, gw)
	case "get_proc_operate_result_v2":
		return gw.gse.poll(api, req.TaskID)
	case "get_proc_status_v2":
		return gw.status(req)
	case "update_proc_info":
		return gw.update(req)
	case "sync_proc_status":
		return gw.gse.syncStatus(req, gw.agentOf)
	case "list_agent_state":
		return gw.listAgentState(req.Agents)
	}
	return nil, &apiError{codeGatewayNotFound, fmt.Sprintf("unknown API %q", api)}
}

func (gw *Gateway) status(req *request) (any, *apiError) {
	if err := gw.validate(req); err != nil {
		return nil, err
	}
	out := []statusEntry{}
	for _, tg := range gw.targets(req, false) {
		if tg.agentFault != nil {
			continue
		}
		if p, ok := gw.gse.procs[keyOf(req.Meta.Namespace, req.Meta.Name, tg.host.BkCloudID, tg.host.IP)]; ok {
			e := gw.hub.reported(p, true)
			e.BkAgentID = gw.agentOf(p) // see statusEntry
			out = append(out, e)
		}
	}
	return map[string]any{"proc_infos": out}, nil
}

// update is update_proc_info through the gateway: an upsert of the
// spec, per-agent results keyed {agent_id}:{namespace}:{name}.
func (gw *Gateway) update(req *request) (any, *apiError) {
	if err := gw.validate(req); err != nil {
		return nil, err
	}
	if err := gatewaySpec(req.Spec); err != nil {
		return nil, err
	}
	out := map[string]hostResult{}
	for _, tg := range gw.targets(req, false) {
		if tg.agentFault != nil {
			out[tg.key] = *tg.agentFault
			continue
		}
		if f := gw.hub.takeHostFault("update_proc_info", tg.host.IP, noOp); f != nil {
			if !f.Missing {
				out[tg.key] = hostResult{ErrorCode: f.Code, ErrorMsg: f.Message}
			}
			continue
		}
		gw.gse.upsert(keyOf(req.Meta.Namespace, req.Meta.Name, tg.host.BkCloudID, tg.host.IP), *req, tg)
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

func (gw *Gateway) listAgentState(ids []string) (any, *apiError) {
	if err := validateAgents(ids); err != nil {
		return nil, err
	}
	out := []agentStateEntry{}
	for _, id := range ids {
		if a, ok := gw.lookupAgent(id); ok {
			out = append(out, agentStateEntry{BkAgentID: id, BkCloudID: a.cloud, StatusCode: gw.agentState(id), Version: "2.1.6"})
		}
	}
	if len(out) == 0 {
		return nil, &apiError{codeNoAgents, "none of the agents exists"}
	}
	return out, nil
}
