package gse

import (
	"context"
	"errors"
	"strconv"
)

// bk-cmdb's hosts with their topology: ESB's cc/list_biz_hosts_topo, or the
// bk-cmdb gateway's /api/v3/hosts/app/{bk_biz_id}/list_hosts_topo
// (bk-cmdb src/scene_server/host_server/service/findhost.go
// ListBizHostsTopo): the hosts of a business in a set matching
// set_property_filter and a module matching module_property_filter, and
// matching host_property_filter, each with every set and module it is in.
// All three filters are querybuilder filters, as list_biz_hosts'
// host_property_filter; page.limit is at most 500 (BKMaxInstanceLimit).

const apiListBizHostsTopo = "list_biz_hosts_topo"

// TopoQuery selects the hosts of a business by the properties of their
// sets, their modules and themselves; a nil filter selects any.
type TopoQuery struct {
	BizID                               int64
	SetFilter, ModuleFilter, HostFilter *HostFilter
}

// HostTopo is a host, with the id field only, and the sets and modules it is in.
type HostTopo struct {
	Host struct {
		BkHostID int64 `json:"bk_host_id"`
	} `json:"host"`
	Topo []struct {
		BkSetID int64 `json:"bk_set_id"`
		Modules []struct {
			BkModuleID int64 `json:"bk_module_id"`
		} `json:"module"`
	} `json:"topo"`
}

type listBizHostsTopoBody struct {
	BizID        int64       `json:"bk_biz_id"`
	Fields       []string    `json:"fields"`
	Page         cmdbPage    `json:"page"`
	SetFilter    *HostFilter `json:"set_property_filter,omitempty"`
	ModuleFilter *HostFilter `json:"module_property_filter,omitempty"`
	HostFilter   *HostFilter `json:"host_property_filter,omitempty"`
}

type listBizHostsTopoReply struct {
	Count int        `json:"count"`
	Info  []HostTopo `json:"info"`
}

// ListBizHostsTopo reads every host q selects with its topology, ordered by
// bk_host_id, in pages of CMDBPageSize (pagedRead).
//
// CMDB API: list_biz_hosts_topo (ESB), /api/v3/hosts/app/{bk_biz_id}/list_hosts_topo (gateway).
func (s *CMDBService) ListBizHostsTopo(ctx context.Context, q TopoQuery) ([]HostTopo, error) {
	c := s.client
	if c.cmdb == nil && c.base == nil {
		return nil, errors.New("list_biz_hosts_topo: neither a bk-cmdb gateway URL nor an ESB endpoint is configured")
	}
	target, root := c.cmdbRoute(apiListBizHostsTopo, "api/v3/hosts/app", strconv.FormatInt(q.BizID, 10), "list_hosts_topo")
	return pagedRead(ctx, c, apiListBizHostsTopo, q.BizID, CMDBPageSize, func(ctx context.Context, start int) (int, []HostTopo, error) {
		body := listBizHostsTopoBody{
			BizID: q.BizID, Fields: []string{"bk_host_id"}, Page: cmdbPage{Start: start, Limit: CMDBPageSize, Sort: "bk_host_id"},
			SetFilter: q.SetFilter, ModuleFilter: q.ModuleFilter, HostFilter: q.HostFilter,
		}
		var out listBizHostsTopoReply
		_, err := c.post(ctx, apiListBizHostsTopo, target, root, body, &out, true)
		return out.Count, out.Info, err
	}, func(h HostTopo) int64 { return h.Host.BkHostID })
}
