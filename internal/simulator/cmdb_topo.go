package simulator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
)

// bk-cmdb's hosts with their topology: ESB's cc/list_biz_hosts_topo and the
// bk-cmdb gateway's /api/v3/hosts/app/{bk_biz_id}/list_hosts_topo, as
// host_server answers them (TencentBlueKing/bk-cmdb, commit 111e7ac6,
// src/scene_server/host_server/service/findhost.go ListBizHostsTopo):
// ListBizHostsTopoParameter.Validate (src/common/metadata/hostserver.go:
// page.limit set and at most 500, then host_property_filter,
// set_property_filter and module_property_filter as list_biz_hosts'
// filter); the sets, then the modules, of the business matching their
// filter (parseHostsTopoFilter: a filter that matches none answers an empty
// page at once); the hosts in those sets and modules matching
// host_property_filter (ListHosts); each with every set and module it is in
// (rearrangeBizHostTopo: the relations are read by host, not by the
// filters). Calls are counted as "cc/list_biz_hosts_topo".

const (
	cmdbTopoAPI = "cc/list_biz_hosts_topo"
	// codeCMDBNeedSet and codeCMDBExceedLimit are CCErrCommParamsNeedSet
	// and CCErrCommXXExceedLimit (src/common/errInfo.go).
	codeCMDBNeedSet     = 1199010
	codeCMDBExceedLimit = 1199035
)

type listBizHostsTopoRequest struct {
	BizID  int64    `json:"bk_biz_id"`
	Fields []string `json:"fields"`
	Page   struct {
		Start int    `json:"start"`
		Limit int    `json:"limit"`
		Sort  string `json:"sort"`
	} `json:"page"`
	SetFilter    json.RawMessage `json:"set_property_filter"`
	ModuleFilter json.RawMessage `json:"module_property_filter"`
	HostFilter   json.RawMessage `json:"host_property_filter"`
}

func (c *CMDB) serveHostsTopoGateway(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	biz, err := strconv.ParseInt(r.PathValue("biz"), 10, 64)
	c.hub.handleGateway(r, cmdbTopoAPI, raw, func(string, []byte) (any, *apiError) {
		if err != nil || biz == 0 {
			return nil, cmdbParamsInvalid("bk_biz_id")
		}
		return c.listBizHostsTopo(raw, biz)
	}).write(w, r)
}

// listBizHostsTopo answers one page; pathBiz is the gateway's bk_biz_id (0: ESB, from the body).
func (c *CMDB) listBizHostsTopo(raw []byte, pathBiz int64) (any, *apiError) {
	req, bad := decodeCMDB(raw, pathBiz, func(r *listBizHostsTopoRequest) *int64 { return &r.BizID })
	if bad != nil {
		return nil, bad
	}
	switch {
	case req.BizID == 0:
		return nil, cmdbParamsInvalid("bk_biz_id")
	case req.Page.Limit == 0:
		return nil, &apiError{codeCMDBNeedSet, "'page.limit' unassigned"}
	case req.Page.Limit > cmdbMaxInstanceLimit:
		return nil, &apiError{codeCMDBExceedLimit, fmt.Sprintf(" page.limit exceed the limit %d", cmdbMaxInstanceLimit)}
	case req.Page.Sort != "" && req.Page.Sort != "bk_host_id":
		return nil, &apiError{codeCMDBParams, "the simulator sorts by bk_host_id only"}
	}
	filters := map[string]*cmdbRule{}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"host_property_filter", req.HostFilter}, {"set_property_filter", req.SetFilter}, {"module_property_filter", req.ModuleFilter}} {
		rule, err := parseCMDBFilter(f.raw, f.name)
		if err != nil {
			return nil, err
		}
		filters[f.name] = rule
	}
	empty := map[string]any{"count": 0, "info": []any{}}
	setIDs, err := c.matchingNodes(true, req.BizID, filters["set_property_filter"])
	if err != nil || filters["set_property_filter"] != nil && len(setIDs) == 0 {
		return empty, err
	}
	moduleIDs, err := c.matchingNodes(false, req.BizID, filters["module_property_filter"])
	if err != nil || filters["module_property_filter"] != nil && len(moduleIDs) == 0 {
		return empty, err
	}
	hosts, err := c.scope(req.BizID, setIDs, moduleIDs, filters["host_property_filter"])
	if err != nil {
		return nil, &apiError{codeCMDBHostGetFail, "Query Host Failed"}
	}
	fields := append(slices.Clone(req.Fields), "bk_host_id")
	return cmdbPage(hosts, req.Page.Start, req.Page.Limit, func(h *CMDBHost) any {
		return map[string]any{"host": h.fields(fields), "topo": h.topo()}
	}), nil
}

// matchingNodes are the ids of the business's sets (sets) or modules that
// filter matches (nil when filter is nil), as GetInstIDNameInfo finds them.
func (c *CMDB) matchingNodes(sets bool, biz int64, filter *cmdbRule) ([]int64, *apiError) {
	if filter == nil || biz != CMDBBizID {
		return nil, nil
	}
	doc, n, first := moduleDoc, c.modules(), CMDBModuleID(0)
	if sets {
		doc, n, first = setDoc, (c.modules()+CMDBModulesPerSet-1)/CMDBModulesPerSet, CMDBSetID(0)
	}
	var ids []int64
	for i := range int64(n) {
		d := doc(first + i)
		ok, err := filter.match(func(name string) (any, bool) { v, ok := d[name]; return v, ok })
		if err != nil {
			return nil, err
		}
		if ok {
			ids = append(ids, first+i)
		}
	}
	return ids, nil
}

// topoSet is a set of a host's topology and the modules it is in there
// (metadata.Topo and Module).
type topoSet struct {
	SetID   int64            `json:"bk_set_id"`
	SetName string           `json:"bk_set_name"`
	Modules []map[string]any `json:"module"`
}

// topo is the host's sets, its first set first.
func (h *CMDBHost) topo() []*topoSet {
	var out []*topoSet
	at := map[int64]*topoSet{}
	for _, m := range h.memberships() {
		ts := at[m.set]
		if ts == nil {
			ts = &topoSet{SetID: m.set, SetName: setName(m.set)}
			at[m.set] = ts
			out = append(out, ts)
		}
		ts.Modules = append(ts.Modules, map[string]any{"bk_module_id": m.module, "bk_module_name": moduleName(m.module)})
	}
	return out
}

// setDoc and moduleDoc are the generated business's set and module id as
// CMDB stores them (the fields of its set and module models the simulator
// fills; cmdbfilter's own fields list them all): the business's odd sets
// are test sets (bk_set_env "1"), the others production ("3").
func setDoc(id int64) map[string]any {
	env := "3"
	if (id-CMDBSetID(0))%2 == 1 {
		env = "1"
	}
	return map[string]any{"bk_set_id": id, "bk_biz_id": int64(CMDBBizID), "bk_parent_id": int64(CMDBBizID), "default": int64(0),
		"bk_set_name": setName(id), "bk_set_env": env, "bk_service_status": "1", "set_template_id": int64(0)}
}

func moduleDoc(id int64) map[string]any {
	return map[string]any{"bk_module_id": id, "bk_set_id": moduleSet(id), "bk_biz_id": int64(CMDBBizID), "bk_parent_id": moduleSet(id), "default": int64(0),
		"bk_module_name": moduleName(id), "bk_module_type": "1", "service_template_id": int64(0), "service_category_id": int64(2)}
}

func setName(id int64) string    { return fmt.Sprintf("set-%d", id) }
func moduleName(id int64) string { return fmt.Sprintf("mod-%d", id) }
