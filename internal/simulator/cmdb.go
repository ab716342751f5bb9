package simulator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// bk-cmdb's host listing: ESB's cc/list_biz_hosts and the
// bk-cmdb gateway's /api/v3/hosts/app/{bk_biz_id}/list_hosts, over a
// generated business topology (Options.CMDBHosts). Calls and faults are
// counted as "cc/list_biz_hosts" in both forms.

const (
	// CMDBBizID is the business the generated hosts belong to.
	CMDBBizID = 2
	// CMDBHostsPerModule and CMDBModulesPerSet shape the generated topology:
	// module m (0-based) holds hosts m*100+1 to m*100+100 (with
	// Options.CMDBHostsPerModule n, m*n+1 to m*n+n) and is in set m/2.
	CMDBHostsPerModule = 100
	CMDBModulesPerSet  = 2

	cmdbAPI          = "cc/list_biz_hosts"
	cmdbMaxLimit     = 1000 // the docs say 500; the server takes 1000
	cmdbMaxSetIDs    = 200
	cmdbMaxModuleIDs = 500
	idleBiz          = 1 // the resource pool: hosts that left the business
	// CMDBCustomIntField is the custom int host field of the generated hosts:
	// host i has i%42+1 there, and bk_service_term i%5+1.
	CMDBCustomIntField = "rack_unit"
)

// CMDB is the endpoint of bk-cmdb's listings: the generated business's
// hosts (this file), which JOB's v3 APIs target too, and their processes
// (cmdb_process.go).
type CMDB struct {
	hub   *Server
	hosts []*CMDBHost // by bk_host_id
	// templates are the process templates of the business's modules (cmdb_process.go).
	templates []*CMDBProcessTemplate
	churn     int // list_biz_hosts requests left that change the fleet first
	perModule int // hosts per module (Options.CMDBHostsPerModule)
}

// CMDBSetID and CMDBModuleID are the ids of the generated set s and module m (0-based).
func CMDBSetID(s int) int64    { return int64(101 + s) }
func CMDBModuleID(m int) int64 { return int64(1001 + m) }

// moduleSet is the set of a module of the generated topology.
func moduleSet(moduleID int64) int64 {
	return CMDBSetID(int(moduleID-CMDBModuleID(0)) / CMDBModulesPerSet)
}

// modules is how many modules the generated topology has.
func (c *CMDB) modules() int { return (len(c.hosts) + c.perModule - 1) / c.perModule }

// CMDBHost is one host of the generated topology, with its fields as
// list_biz_hosts returns them.
type CMDBHost struct {
	ID        int64  `json:"bk_host_id"`
	InnerIP   string `json:"bk_host_innerip"`    // several IPv4 addresses joined by commas on some hosts
	InnerIPv6 string `json:"bk_host_innerip_v6"` // the only address of some hosts
	CloudID   int64  `json:"bk_cloud_id"`
	AgentID   string `json:"bk_agent_id"` // empty on hosts whose agent predates GSE 2.0
	Name      string `json:"bk_host_name"`
	OSType    string `json:"bk_os_type"` // "1" Linux, "2" Windows
	// ServiceTerm is CMDB's own int field bk_service_term (warranty years).
	ServiceTerm int64 `json:"bk_service_term"`
	// RackUnit is a custom int field (CMDBCustomIntField) the business added to hosts.
	RackUnit int64 `json:"rack_unit"`
	BizID    int64 `json:"bk_biz_id"`
	SetID    int64 `json:"bk_set_id"`
	ModuleID int64 `json:"bk_module_id"`
	// AlsoModuleIDs are further modules the host is in (AddHostToModule).
	AlsoModuleIDs []int64 `json:"also_bk_module_ids,omitempty"`
}

// generate builds n hosts and their process templates (templates of them
// beyond nginx and agent: Options.CMDBProcessTemplates): host i has IPv4
// 10.x.y.z; every 10th a second IPv4; i%50 == 25 only an IPv6 address;
// i%100 == 99 no address; even hosts a GSE 2.0 agent id (registered with gw);
// every 7th runs Windows.
func (c *CMDB) generate(n, templates int, gw *Gateway) {
	c.hosts = make([]*CMDBHost, 0, n)
	for i := 1; i <= n; i++ {
		m := (i - 1) / c.perModule
		h := &CMDBHost{
			ID: int64(i), Name: fmt.Sprintf("host-%05d", i), OSType: "1", ServiceTerm: int64(i%5 + 1), RackUnit: int64(i%42 + 1),
			BizID: CMDBBizID, SetID: CMDBSetID(m / CMDBModulesPerSet), ModuleID: CMDBModuleID(m),
			InnerIP: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255),
		}
		agentIP := h.firstIPv4()
		switch {
		case i%50 == 25:
			// Stored in full form, as common.ConvertHostIpv6Val writes it; the agent reports the short one.
			v6 := netip.MustParseAddr(fmt.Sprintf("fd00::%x", i))
			h.InnerIP, h.InnerIPv6, agentIP = "", v6.StringExpanded(), v6.String()
		case i%100 == 99:
			h.InnerIP = ""
		case i%10 == 0:
			h.InnerIP += fmt.Sprintf(",192.168.%d.%d", i>>8&255, i&255)
		}
		if i%7 == 0 {
			h.OSType = "2"
		}
		if i%2 == 0 {
			h.AgentID = fmt.Sprintf("0200000007525400%020x", i)
			gw.addAgent(h.AgentID, h.CloudID, agentIP)
		}
		c.hosts = append(c.hosts, h)
	}
	c.generateProcessTemplates(c.modules(), templates)
}

// Hosts returns a copy of every generated host, ordered by bk_host_id.
func (c *CMDB) Hosts() []CMDBHost {
	c.hub.mu.Lock()
	defer c.hub.mu.Unlock()
	out := make([]CMDBHost, len(c.hosts))
	for i, h := range c.hosts {
		out[i] = *h
	}
	return out
}

// MoveHost moves a host to another module of the business (and that
// module's set), as a transfer in CMDB does.
func (c *CMDB) MoveHost(hostID, moduleID int64) error {
	c.hub.mu.Lock()
	defer c.hub.mu.Unlock()
	if !c.hasTopoNode(false, moduleID) {
		return fmt.Errorf("module %d does not exist", moduleID)
	}
	h := c.host(hostID)
	if h == nil {
		return fmt.Errorf("host %d does not exist", hostID)
	}
	h.BizID, h.ModuleID, h.SetID, h.AlsoModuleIDs = CMDBBizID, moduleID, moduleSet(moduleID), nil
	return nil
}

func (c *CMDB) host(id int64) *CMDBHost {
	i, ok := slices.BinarySearchFunc(c.hosts, id, func(h *CMDBHost, id int64) int { return int(h.ID - id) })
	if !ok {
		return nil
	}
	return c.hosts[i]
}

// Churn makes each of the next n list_biz_hosts requests first move the
// lowest host out of the business (or back in): a fleet changing while a
// client pages through it.
func (c *CMDB) Churn(n int) {
	c.hub.mu.Lock()
	defer c.hub.mu.Unlock()
	c.churn = n
}

func (c *CMDB) serveMoveHost(w http.ResponseWriter, r *http.Request) {
	serveAdmin(w, r, func(m struct {
		HostID   int64 `json:"bk_host_id"`
		ModuleID int64 `json:"bk_module_id"`
	}) error {
		return c.MoveHost(m.HostID, m.ModuleID)
	})
}

func (c *CMDB) serveHosts(w http.ResponseWriter, _ *http.Request) { writeJSON(w, c.Hosts()) }

func (c *CMDB) serve(w http.ResponseWriter, r *http.Request) {
	c.hub.serve(w, r, "cc/", func(api string, raw []byte) (any, *apiError) {
		return c.cmdbDispatch("cc/"+api, raw, 0)
	})
}

func (c *CMDB) serveHostsGateway(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	biz, err := strconv.ParseInt(r.PathValue("biz"), 10, 64)
	c.hub.handleGateway(r, cmdbAPI, raw, func(string, []byte) (any, *apiError) {
		if err != nil || biz <= 0 {
			return nil, &apiError{codeCMDBParams, fmt.Sprintf("bk_biz_id %q in the path is not a business id", r.PathValue("biz"))}
		}
		return c.listBizHosts(raw, biz)
	}).write(w, r)
}

type listBizHostsRequest struct {
	BizID  int64    `json:"bk_biz_id"`
	Fields []string `json:"fields"`
	Page   *struct {
		Start int    `json:"start"`
		Limit int    `json:"limit"`
		Sort  string `json:"sort"`
	} `json:"page"`
	SetIDs    []int64         `json:"bk_set_ids"`
	ModuleIDs []int64         `json:"bk_module_ids"`
	Filter    json.RawMessage `json:"host_property_filter"`
}

// listBizHosts answers one page; pathBiz is the gateway's bk_biz_id (0: ESB, from the body).
func (c *CMDB) listBizHosts(raw []byte, pathBiz int64) (any, *apiError) {
	var req listBizHostsRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, &apiError{codeCMDBParams, "the body does not match list_biz_hosts: " + err.Error()}
	}
	if pathBiz != 0 {
		req.BizID = pathBiz
	}
	filter, err := req.check()
	if err != nil {
		return nil, err
	}
	if c.churn > 0 && len(c.hosts) > 0 {
		c.churn--
		h := c.hosts[0]
		h.BizID = map[bool]int64{true: idleBiz, false: CMDBBizID}[h.BizID == CMDBBizID]
	}
	hosts, err := c.scope(req.BizID, req.SetIDs, req.ModuleIDs, filter)
	if err != nil {
		return nil, err
	}
	if req.Page.Sort == "-bk_host_id" {
		slices.Reverse(hosts)
	}
	return cmdbPage(hosts, req.Page.Start, req.Page.Limit, func(h *CMDBHost) any { return h.fields(req.Fields) }), nil
}

// cmdbPage is the page of items from start, at most limit of them, each as
// doc gives it, under the count of all: CMDB's {count, info} listings.
func cmdbPage[T any](items []T, start, limit int, doc func(T) any) map[string]any {
	start = min(start, len(items))
	page := items[start:min(start+limit, len(items))]
	info := make([]any, len(page))
	for i, it := range page {
		info[i] = doc(it)
	}
	return map[string]any{"count": len(items), "info": info}
}

// decodeCMDB decodes a CMDB request as rest.Contexts.DecodeInto does
// (1199000 when it does not decode); pathBiz, the gateway's bk_biz_id (0:
// none), replaces the body's, which biz points to.
func decodeCMDB[T any](raw []byte, pathBiz int64, biz func(*T) *int64) (*T, *apiError) {
	req := new(T)
	if err := json.Unmarshal(raw, req); err != nil {
		return nil, &apiError{codeCMDBJSON, "Deserializing JSON data failed"}
	}
	if pathBiz != 0 {
		*biz(req) = pathBiz
	}
	return req, nil
}

// scope is the business's hosts in one of setIDs and one of moduleIDs (in
// one membership; empty lists: any) that filter matches, by bk_host_id.
func (c *CMDB) scope(biz int64, setIDs, moduleIDs []int64, filter *cmdbRule) ([]*CMDBHost, *apiError) {
	var hosts []*CMDBHost
	expanded := false
	for _, h := range c.hosts {
		if h.BizID != biz || !slices.ContainsFunc(h.memberships(), func(m membership) bool { return inIDs(setIDs, m.set) && inIDs(moduleIDs, m.module) }) {
			continue
		}
		// The searcher builds the filter only when the scope holds hosts
		// (host_server searcher.go): an invalid IPv6 value of an empty scope
		// lists nothing without an error.
		if filter != nil && !expanded {
			expanded = true
			if filter.expandIPv6() != nil {
				return nil, &apiError{codeCMDBHostGetFail, "Query Host Failed"}
			}
		}
		if filter != nil {
			ok, err := filter.match(h.field)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}

// check validates the request in ListHostsParameter.Validate's order
// (bk-cmdb src/common/metadata/hostserver.go): page, host_property_filter,
// bk_set_ids, bk_module_ids. It returns the parsed filter (nil if none).
func (req *listBizHostsRequest) check() (*cmdbRule, *apiError) {
	switch {
	case req.BizID <= 0:
		return nil, &apiError{codeCMDBParams, "bk_biz_id is required"}
	case len(req.Fields) == 0:
		return nil, &apiError{codeCMDBParams, "fields is required"}
	case req.Page == nil || req.Page.Limit <= 0 || req.Page.Limit > cmdbMaxLimit || req.Page.Start < 0:
		return nil, &apiError{codeCMDBParams, fmt.Sprintf("page.limit must be 1 to %d and page.start 0 or more", cmdbMaxLimit)}
	case req.Page.Sort != "" && req.Page.Sort != "bk_host_id" && req.Page.Sort != "-bk_host_id":
		return nil, &apiError{codeCMDBParams, "the simulator sorts by bk_host_id only"}
	}
	filter, err := parseCMDBFilter(req.Filter, "host_property_filter")
	switch {
	case err != nil:
		return nil, err
	case len(req.SetIDs) > cmdbMaxSetIDs:
		return nil, &apiError{codeCMDBParams, fmt.Sprintf("bk_set_ids holds %d ids, at most %d", len(req.SetIDs), cmdbMaxSetIDs)}
	case len(req.ModuleIDs) > cmdbMaxModuleIDs:
		return nil, &apiError{codeCMDBParams, fmt.Sprintf("bk_module_ids holds %d ids, at most %d", len(req.ModuleIDs), cmdbMaxModuleIDs)}
	}
	return filter, nil
}

func inIDs(ids []int64, id int64) bool { return len(ids) == 0 || slices.Contains(ids, id) }

// firstIPv4 is the first of the host's IPv4 addresses, the one its agent and JOB use.
func (h *CMDBHost) firstIPv4() string {
	first, _, _ := strings.Cut(h.InnerIP, ",")
	return first
}

// field is one field of the host, and whether it has it.
func (h *CMDBHost) field(name string) (any, bool) {
	v, ok := h.fields([]string{name})[name]
	return v, ok
}

func (h *CMDBHost) fields(names []string) map[string]any {
	all := map[string]any{
		"bk_host_id": h.ID, "bk_host_innerip": h.InnerIP, "bk_host_innerip_v6": h.InnerIPv6, "bk_cloud_id": h.CloudID,
		"bk_agent_id": h.AgentID, "bk_host_name": h.Name, "bk_os_type": h.OSType,
		"bk_service_term": h.ServiceTerm, CMDBCustomIntField: h.RackUnit,
	}
	out := make(map[string]any, len(names))
	for _, n := range names {
		if v, ok := all[n]; ok {
			out[n] = v
		}
	}
	return out
}
