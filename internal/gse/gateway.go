package gse

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// GSE 2.0 through the BlueKing API gateway (BlueKing's GSE 2.0 API docs): the same process
// APIs under {gateway}/api/v2/proc/, hosts addressed by agent id, result keys
// {agent_id}:{namespace}:{name}, credentials only in X-Bkapi-Authorization.

const familyCluster = "cluster" // /api/v2/cluster/...: agent state

// ParseGatewayURL checks a GSE 2.0 gateway root: http or https, a host, a
// path (the stage, e.g. /api/bk-gse/prod) and no query.
func ParseGatewayURL(s string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(s, "/"))
	if err != nil {
		return nil, fmt.Errorf("the gateway URL %q is not a URL: %w", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("the gateway URL %q must be an http:// or https:// URL with a host and no query, e.g. https://bkapi.example.com/api/bk-gse/prod", s)
	}
	return u, nil
}

// Gateway reports whether GSE calls go through the GSE 2.0 gateway.
func (c *Client) Gateway() bool { return c.gateway != nil }

// ESB reports whether an ESB endpoint is configured: the JOB APIs need one.
func (c *Client) ESB() bool { return c.base != nil }

// route is the URL of family/api and the root it is under ("" when the
// family's root is not configured). Go callers of the gateway send no
// trailing slash; ESB wants one.
func (c *Client) route(family, api string) (string, Root) {
	if c.gateway != nil && (family == familyGSE || family == familyCluster) {
		sub := "proc"
		if family == familyCluster {
			sub = familyCluster
		}
		return c.gateway.JoinPath("api/v2", sub, api).String(), RootGateway
	}
	if c.base == nil {
		return "", RootESB
	}
	return c.base.JoinPath("api/c/compapi/v2", family, api).String() + "/", RootESB
}

// cmdbRoute is the URL of CMDB's api: under the bk-cmdb gateway at path when
// it is configured, else ESB's cc/api.
func (c *Client) cmdbRoute(api string, path ...string) (string, Root) {
	if c.cmdb != nil {
		return c.cmdb.JoinPath(path...).String(), RootCMDBGateway
	}
	return c.route(familyCMDB, api)
}

// Address is how the gateway addresses h: its agent id, or {bk_cloud_id}:{ip}
// for a host given by ip (the form GSE 2.0 takes where agent-id mode is off,
// and the only way to reach an IPv6 host).
func (h Host) Address() string {
	if h.AgentID != "" {
		return h.AgentID
	}
	return fmt.Sprintf("%d:%s", h.BkCloudID, h.IP)
}

// agentKey is the identity of an agent address: {bk_cloud_id}:{ip} forms in
// canonical IP form (so they equal Host.Key of the same host), other agent ids
// in lower case: they are hex, and one id in two cases is one agent.
func agentKey(addr string) string {
	if k, ok := cloudIPKey(addr); ok {
		return k
	}
	return strings.ToLower(addr)
}

// cloudIPKey is the ipKey of a {bk_cloud_id}:{ip} agent address; ok is false for any other.
func cloudIPKey(addr string) (string, bool) {
	if cloud, ip, ok := strings.Cut(addr, ":"); ok {
		if n, err := strconv.ParseInt(cloud, 10, 64); err == nil {
			return ipKey(n, ip), true
		}
	}
	return "", false
}

// keyAgent is the gateway's result-map key, built from the address sent.
func keyAgent(h Host, m Meta) string { return h.Address() + ":" + m.Namespace + ":" + m.Name }

func addresses(hosts []Host) []string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = h.Address()
	}
	return out
}

// specGW is a spec as the gateway takes it: monitor_policy by its 2.0 name,
// and resource only when a limit is set. GSEKit sends no resource block to
// the gateway's operate_proc_multi (bk-process-config-manager
// apps/gsekit/pipeline_plugins/components/collections/gse.py
// BulkGseOperateProcessService._execute), nor does bk-bscp to it or to
// update_proc_info (bk-bscp internal/components/gse/type.go ProcessSpec,
// UpdateProcInfoReq): the gateway takes a spec without one, and default
// limits made restarts fail on real installations.
type specGW struct {
	Identity         Identity          `json:"identity"`
	Control          Control           `json:"control"`
	Resource         *Resource         `json:"resource,omitempty"`
	MonitorPolicy    *MonitorPolicy    `json:"monitor_policy,omitempty"`
	WarnReportPolicy *WarnReportPolicy `json:"warn_report_policy,omitempty"`
	Configmap        []ConfigMap       `json:"configmap,omitempty"`
}

func (s *Spec) gateway() *specGW {
	if s == nil {
		return nil
	}
	out := &specGW{Identity: s.Identity, Control: s.Control, MonitorPolicy: s.MonitorPolicy, WarnReportPolicy: s.WarnReportPolicy, Configmap: s.Configmap}
	if s.Resource.limits() {
		out.Resource = s.Resource
	}
	return out
}

type gatewayBody struct {
	Meta        Meta     `json:"meta"`
	AgentIDList []string `json:"agent_id_list"`
	OpType      *OpType  `json:"op_type,omitempty"`
	Spec        *specGW  `json:"spec,omitempty"`
}

// gatewayOperate runs operate tasks through the gateway. There is no gateway
// register: an operate carrying the full spec (op 0 or 3) creates the process.
var gatewayOperate = operateFamily{
	single: "operate_proc_v2", multi: "operate_proc_multi", result: "get_proc_operate_result_v2",
	body: func(r OperateRequest) any {
		return gatewayBody{Meta: r.Meta, AgentIDList: addresses(r.Hosts), OpType: &r.Op, Spec: r.Spec.gateway()}
	},
	key: keyAgent,
}

// gatewayStatus reads get_proc_status_v2 through the gateway. Each entry is
// tied to the host it was asked for, so entry.Host.Key() equals that Host's
// Key(): by the entry's top-level bk_agent_id (ProcStatus.BkAgentID), or, for
// an entry that names its host by another agent id (a real one for a host
// sent as {cloud}:{ip}), by ip and cloud id: those of a host given by ip or
// by a {cloud}:{ip} agent id. A host given only by a hex agent id has no ip
// to fall back on.
func (s *ProcService) gatewayStatus(ctx context.Context, meta Meta, chunk []Host) ([]ProcStatus, error) {
	var out statusReply
	if err := s.client.call(ctx, familyGSE, "get_proc_status_v2", gatewayBody{Meta: meta, AgentIDList: addresses(chunk)}, &out, true); err != nil {
		return nil, err
	}
	byAgent, byIP := map[string]Host{}, map[string]Host{}
	for _, h := range chunk {
		byAgent[agentKey(h.Address())] = h
		if h.IP != "" {
			byIP[Host{IP: h.IP, BkCloudID: h.BkCloudID}.Key()] = h
		} else if k, ok := cloudIPKey(h.AgentID); ok {
			byIP[k] = h // a {cloud}:{ip} agent id names the ip
		}
	}
	for i := range out.ProcInfos {
		e := &out.ProcInfos[i]
		h, ok := byAgent[agentKey(e.BkAgentID)]
		if !ok && e.Host.IP != "" {
			h, ok = byIP[Host{IP: e.Host.IP, BkCloudID: e.Host.BkCloudID}.Key()]
		}
		if ok {
			e.Host.sentAs = h.Address()
		}
	}
	return out.ProcInfos, nil
}

// AgentState is one agent's entry of list_agent_state.
type AgentState struct {
	BkAgentID  string `json:"bk_agent_id"`
	BkCloudID  int64  `json:"bk_cloud_id"`
	StatusCode int    `json:"status_code"`
	Version    string `json:"version"`
}

// AgentRunning is the status_code of a running agent; 0 init, 1 starting,
// 3 damaged, 4 busy, 5 upgrading, 6 stopping, 7 uninstalled, -1 unknown.
const AgentRunning = 2

// Running reports whether the agent is up: operations and status queries on
// any other agent answer 115 forever.
func (a AgentState) Running() bool { return a.StatusCode == AgentRunning }

// CodeNoAgents is list_agent_state's answer when none of the agents exists.
const CodeNoAgents = 1011003

// agentStatePage is the most agent ids of one list_agent_state call.
const agentStatePage = 1000

// ListAgentState reads the state of the agents of hosts
// (/api/v2/cluster/list_agent_state), in pages of 1000. An agent that does not
// exist has no entry. Gateway mode only.
//
// GSE API: /api/v2/cluster/list_agent_state (gateway).
func (s *ClusterService) ListAgentState(ctx context.Context, hosts []Host) ([]AgentState, error) {
	if s.client.gateway == nil {
		return nil, errors.New("list_agent_state is a GSE 2.0 API: it needs the gateway URL")
	}
	var all []AgentState
	for chunk := range slices.Chunk(hosts, agentStatePage) {
		var page []AgentState
		err := s.client.call(ctx, familyCluster, "list_agent_state", struct {
			AgentIDList []string `json:"agent_id_list"`
		}{addresses(chunk)}, &page, true)
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.Code == CodeNoAgents {
			continue
		}
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
	}
	return all, nil
}
