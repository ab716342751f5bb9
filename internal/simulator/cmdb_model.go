package simulator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
)

// The generated business's model and topology as bk-cmdb's topo_server
// answers them (TencentBlueKing/bk-cmdb, commit 111e7ac6):
// find_set_batch and find_module_batch (src/scene_server/topo_server/service
// inst_set.go SearchSetBatch, inst_module.go SearchModuleBatch: the
// instances of the business among bk_ids, with the fields asked) and
// search_object_attribute (object_attribute.go SearchObjectAttribute: the
// object's attributes, without system and API-only ones, plus the
// business's custom fields when bk_biz_id is given). Calls are counted as
// "cc/{api}" through ESB and the gateway alike.

const (
	cmdbSetBatchAPI    = "cc/find_set_batch"
	cmdbModuleBatchAPI = "cc/find_module_batch"
	cmdbAttrAPI        = "cc/search_object_attribute"
	// cmdbMaxInstanceLimit is common.BKMaxInstanceLimit: SearchInstBatchOption.Validate's
	// limit on bk_ids (src/common/metadata/common.go) and
	// ListBizHostsTopoParameter.Validate's on page.limit.
	cmdbMaxInstanceLimit = 500
	// codeCMDBArrayLength is CCErrArrayLengthWrong (src/common/errInfo.go).
	codeCMDBArrayLength = 1199089
)

// cmdbHostAttrs are host attributes search_object_attribute lists for every
// business (some of CMDB's own host model: upgrader v3.0.8 HostRow and later
// ones, those the simulator's hosts hold and a few they leave empty), and
// cmdbBizHostAttrs the custom ones of the generated business.
var (
	cmdbHostAttrs = []string{
		"bk_host_innerip", "bk_host_outerip", "bk_host_innerip_v6", "bk_host_outerip_v6", "bk_agent_id", "bk_cloud_id",
		"bk_host_name", "bk_os_type", "bk_os_name", "bk_service_term", "operator", "bk_bak_operator",
	}
	cmdbBizHostAttrs = []string{CMDBCustomIntField}
	// cmdbSetAttrs and cmdbModuleAttrs are the set and module attributes it
	// lists (upgrader v3.0.8 SetRow and ModuleRow less the API-only ones).
	cmdbSetAttrs    = []string{"bk_set_name", "bk_set_desc", "bk_set_env", "bk_service_status", "description", "bk_capacity"}
	cmdbModuleAttrs = []string{"bk_module_name", "bk_module_type", "operator", "bk_bak_operator"}
)

// cmdbDispatch answers the CMDB APIs by ESB name ("cc/{api}"); pathBiz is
// the gateway's bk_biz_id (0: from the body).
func (c *CMDB) cmdbDispatch(api string, raw []byte, pathBiz int64) (any, *apiError) {
	switch api {
	case cmdbAPI:
		return c.listBizHosts(raw, pathBiz)
	case cmdbTopoAPI:
		return c.listBizHostsTopo(raw, pathBiz)
	case cmdbProcAPI:
		return c.listProcessRelatedInfo(raw, pathBiz)
	case cmdbSetBatchAPI, cmdbModuleBatchAPI:
		return c.findBatch(api == cmdbSetBatchAPI, raw, pathBiz)
	case cmdbAttrAPI:
		return c.searchObjectAttribute(raw)
	}
	return nil, &apiError{codeComponentNotFound, "Not found, component class not found, " + api}
}

// findBatch answers find_set_batch (sets) or find_module_batch.
func (c *CMDB) findBatch(sets bool, raw []byte, pathBiz int64) (any, *apiError) {
	var req struct {
		BizID  int64    `json:"bk_biz_id"`
		IDs    []int64  `json:"bk_ids"`
		Fields []string `json:"fields"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, &apiError{codeCMDBJSON, "Deserializing JSON data failed"}
	}
	if pathBiz != 0 {
		req.BizID = pathBiz
	}
	switch { // SearchInstBatchOption.Validate, its English texts in resources/errors/english/en/common.json
	case len(req.IDs) == 0 || len(req.IDs) > cmdbMaxInstanceLimit:
		return nil, &apiError{codeCMDBArrayLength, fmt.Sprintf("the length of array bk_ids is wrong, the length must be in range 1~%d", cmdbMaxInstanceLimit)}
	case len(req.Fields) == 0:
		return nil, cmdbParamsInvalid("fields")
	}
	idField := map[bool]string{true: "bk_set_id", false: "bk_module_id"}[sets]
	info := []map[string]any{}
	for _, id := range req.IDs {
		if req.BizID == CMDBBizID && c.hasTopoNode(sets, id) {
			inst := map[string]any{}
			if slices.Contains(req.Fields, idField) {
				inst[idField] = id
			}
			info = append(info, inst)
		}
	}
	return info, nil
}

// hasTopoNode says whether the generated business has set (sets) or module id.
func (c *CMDB) hasTopoNode(sets bool, id int64) bool {
	modules := c.modules()
	if sets {
		s := id - CMDBSetID(0)
		return s >= 0 && s < int64((modules+CMDBModulesPerSet-1)/CMDBModulesPerSet)
	}
	m := id - CMDBModuleID(0)
	return m >= 0 && m < int64(modules)
}

// searchObjectAttribute answers search_object_attribute for host, process, set and module.
func (c *CMDB) searchObjectAttribute(raw []byte) (any, *apiError) {
	var req struct {
		ObjID string `json:"bk_obj_id"`
		BizID int64  `json:"bk_biz_id"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, &apiError{codeCMDBJSON, "Deserializing JSON data failed"}
	}
	var ids []string
	switch req.ObjID {
	case "host":
		ids = slices.Clone(cmdbHostAttrs)
		if req.BizID == CMDBBizID {
			ids = append(ids, cmdbBizHostAttrs...)
		}
	case "process":
		ids = cmdbProcessFields
	case "set":
		ids = cmdbSetAttrs
	case "module":
		ids = cmdbModuleAttrs
	}
	out := make([]map[string]any, len(ids))
	for i, id := range ids {
		out[i] = map[string]any{"bk_obj_id": req.ObjID, "bk_property_id": id, "bk_biz_id": 0}
	}
	return out, nil
}

// serveModelGateway serves api through the bk-cmdb gateway: the topo
// batches take bk_biz_id from the path, search_object_attribute from the body.
func (c *CMDB) serveModelGateway(api string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var biz int64
		var err error
		if p := r.PathValue("biz"); p != "" {
			biz, err = strconv.ParseInt(p, 10, 64)
		}
		c.hub.handleGateway(r, api, raw, func(string, []byte) (any, *apiError) {
			if err != nil {
				return nil, cmdbParamsInvalid("bk_biz_id") // SearchSetBatch and SearchModuleBatch parse the path first
			}
			return c.cmdbDispatch(api, raw, biz)
		}).write(w, r)
	}
}
