package gse

import (
	"context"
	"slices"
	"strconv"
)

// What the CMDB data sources check a selection against: the sets and
// modules of a business by id (find_set_batch, find_module_batch) and the
// fields of a CMDB object (search_object_attribute).

const (
	apiFindSetBatch          = "find_set_batch"
	apiFindModuleBatch       = "find_module_batch"
	apiSearchObjectAttribute = "search_object_attribute"
	// cmdbIDsPerBatch is find_set_batch's and find_module_batch's limit on bk_ids.
	cmdbIDsPerBatch = 500
)

// BizSets reports which of ids are sets of business biz.
//
// CMDB API: find_set_batch (ESB), /api/v3/findmany/set/bk_biz_id/{bk_biz_id} (gateway).
func (s *CMDBService) BizSets(ctx context.Context, biz int64, ids []int64) (map[int64]bool, error) {
	return s.findBatch(ctx, apiFindSetBatch, "set", "bk_set_id", biz, ids)
}

// BizModules reports which of ids are modules of business biz.
//
// CMDB API: find_module_batch (ESB), /api/v3/findmany/module/bk_biz_id/{bk_biz_id} (gateway).
func (s *CMDBService) BizModules(ctx context.Context, biz int64, ids []int64) (map[int64]bool, error) {
	return s.findBatch(ctx, apiFindModuleBatch, "module", "bk_module_id", biz, ids)
}

// findBatch reads the instances of obj (set, module) with these ids in
// business biz, cmdbIDsPerBatch ids a call, and reports which exist.
func (s *CMDBService) findBatch(ctx context.Context, api, obj, idField string, biz int64, ids []int64) (map[int64]bool, error) {
	c := s.client
	target, root := c.cmdbRoute(api, "api/v3/findmany", obj, "bk_biz_id", strconv.FormatInt(biz, 10))
	found := make(map[int64]bool, len(ids))
	for part := range slices.Chunk(ids, cmdbIDsPerBatch) {
		body := map[string]any{"bk_biz_id": biz, "bk_ids": part, "fields": []string{idField}}
		var out []map[string]any
		if _, err := c.post(ctx, api, target, root, body, &out, true); err != nil {
			return nil, err
		}
		for _, inst := range out {
			if id, ok := inst[idField].(float64); ok {
				found[int64(id)] = true
			}
		}
	}
	return found, nil
}

// ObjectFields are the field ids (bk_property_id) CMDB's model gives object
// obj ("host", "process"), business biz's custom fields included. CMDB
// lists neither system nor API-only fields (bk_host_id and the like).
//
// CMDB API: search_object_attribute (ESB), /api/v3/find/objectattr (gateway).
func (s *CMDBService) ObjectFields(ctx context.Context, biz int64, obj string) ([]string, error) {
	c := s.client
	target, root := c.cmdbRoute(apiSearchObjectAttribute, "api/v3/find/objectattr")
	var out []struct {
		ID string `json:"bk_property_id"`
	}
	if _, err := c.post(ctx, apiSearchObjectAttribute, target, root, map[string]any{"bk_obj_id": obj, "bk_biz_id": biz}, &out, true); err != nil {
		return nil, err
	}
	ids := make([]string, len(out))
	for i, a := range out {
		ids[i] = a.ID
	}
	return ids, nil
}
