package gse

import (
	"context"
	"errors"
	"strconv"

	"golang.org/x/sync/errgroup"
)

// CMDB's process definitions, as GSEKit and bk-bscp read them: the hidden
// list_process_related_info, one row per process of a service instance with
// the set, module, host and template it belongs to.

const (
	// APIListProcessRelatedInfo is the API CMDB's processes are read with, as
	// an APIError names it.
	APIListProcessRelatedInfo = "list_process_related_info"
	// CMDBProcessPageSize is the page list_process_related_info takes: its
	// server refuses more than 1000 (BasePage.IsIllegal, BKMaxPageSize),
	// though its doc says 500.
	CMDBProcessPageSize = 1000
	// cmdbHostIDsPerRead is how many bk_host_id a host read of the rows'
	// hosts asks for at once: one page of list_biz_hosts.
	cmdbHostIDsPerRead = CMDBPageSize
)

// ProcessQuery selects the processes of a business. Empty lists mean every
// set, module and service instance; Filter is process_property_filter, the
// host filter's grammar over process fields.
type ProcessQuery struct {
	BizID              int64
	SetIDs, ModuleIDs  []int64
	ServiceInstanceIDs []int64
	Filter             *HostFilter
}

// ProcessRow is one process of a service instance and what it belongs to.
// Host holds the ids only: its addresses and agent id are read from
// list_biz_hosts (the row's bk_host_innerip is the stored list joined).
type ProcessRow struct {
	Set struct {
		ID   int64  `json:"bk_set_id"`
		Name string `json:"bk_set_name"`
		Env  string `json:"bk_set_env"`
	} `json:"set"`
	Module struct {
		ID   int64  `json:"bk_module_id"`
		Name string `json:"bk_module_name"`
	} `json:"module"`
	Host struct {
		ID      int64 `json:"bk_host_id"`
		CloudID int64 `json:"bk_cloud_id"`
	} `json:"host"`
	ServiceInstance struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	} `json:"service_instance"`
	ProcessTemplate struct {
		ID int64 `json:"id"`
	} `json:"process_template"`
	Process CMDBProcess `json:"process"`
}

// CMDBProcess is a process as CMDB stores it (metadata.Process): any field
// may be null.
type CMDBProcess struct {
	ID             int64   `json:"bk_process_id"`
	Name           string  `json:"bk_process_name"`
	FuncName       string  `json:"bk_func_name"`
	WorkPath       *string `json:"work_path"`
	PidFile        *string `json:"pid_file"`
	User           *string `json:"user"`
	StartCmd       *string `json:"start_cmd"`
	StopCmd        *string `json:"stop_cmd"`
	RestartCmd     *string `json:"restart_cmd"`
	ReloadCmd      *string `json:"reload_cmd"`
	FaceStopCmd    *string `json:"face_stop_cmd"`
	StartCheckSecs *int64  `json:"bk_start_check_secs"`
	Timeout        *int64  `json:"timeout"`
	Priority       *int64  `json:"priority"`
	ProcNum        *int64  `json:"proc_num"`
	// BindInfo is where the process listens, one row per template row.
	BindInfo []CMDBBindInfo `json:"bind_info"`
}

// CMDBBindInfo is a row of a process's bind_info (bk-cmdb
// src/common/metadata/process_bind_info.go stdProcBindInfo): ip is the
// address the template's bind type resolves to on the host, port a port or
// a range ("8080", "8080-8089"), protocol CMDB's code ("1" TCP, "2" UDP,
// "3" TCP6, "4" UDP6; src/common/metadata/process.go ProtocolType).
type CMDBBindInfo struct {
	TemplateRowID int64   `json:"template_row_id"`
	IP            *string `json:"ip"`
	Port          *string `json:"port"`
	Protocol      *string `json:"protocol"`
	Enable        *bool   `json:"enable"`
}

type listProcessRelatedInfoBody struct {
	BizID int64 `json:"bk_biz_id"`
	Set   *struct {
		IDs []int64 `json:"bk_set_ids"`
	} `json:"set,omitempty"`
	Module *struct {
		IDs []int64 `json:"bk_module_ids"`
	} `json:"module,omitempty"`
	ServiceInstance *struct {
		IDs []int64 `json:"ids"`
	} `json:"service_instance,omitempty"`
	Filter *HostFilter `json:"process_property_filter,omitempty"`
	Page   cmdbPage    `json:"page"`
}

type listProcessRelatedInfoReply struct {
	Count int          `json:"count"`
	Info  []ProcessRow `json:"info"`
}

// ListProcessRelatedInfo reads every process q selects, ordered by
// bk_process_id, in pages of CMDBProcessPageSize (pagedRead). Only the
// fields the server decodes are sent: the documented top-level
// bk_process_names and the like are dropped by it, and would list the
// whole business.
//
// CMDB API: list_process_related_info (ESB, hidden),
// /api/v3/findmany/proc/process_related_info/biz/{bk_biz_id} (gateway).
func (s *CMDBService) ListProcessRelatedInfo(ctx context.Context, q ProcessQuery) ([]ProcessRow, error) {
	c := s.client
	if c.cmdb == nil && c.base == nil {
		return nil, errors.New("list_process_related_info: neither a bk-cmdb gateway URL nor an ESB endpoint is configured")
	}
	body := listProcessRelatedInfoBody{BizID: q.BizID, Filter: q.Filter}
	if len(q.SetIDs) > 0 {
		body.Set = &struct {
			IDs []int64 `json:"bk_set_ids"`
		}{q.SetIDs}
	}
	if len(q.ModuleIDs) > 0 {
		body.Module = &struct {
			IDs []int64 `json:"bk_module_ids"`
		}{q.ModuleIDs}
	}
	if len(q.ServiceInstanceIDs) > 0 {
		body.ServiceInstance = &struct {
			IDs []int64 `json:"ids"`
		}{q.ServiceInstanceIDs}
	}
	target, root := c.cmdbRoute(APIListProcessRelatedInfo, "api/v3/findmany/proc/process_related_info/biz", strconv.FormatInt(q.BizID, 10))
	return pagedRead(ctx, c, APIListProcessRelatedInfo, q.BizID, CMDBProcessPageSize, func(ctx context.Context, start int) (int, []ProcessRow, error) {
		b := body
		b.Page = cmdbPage{Start: start, Limit: CMDBProcessPageSize, Sort: "bk_process_id"}
		var out listProcessRelatedInfoReply
		_, err := c.post(ctx, APIListProcessRelatedInfo, target, root, b, &out, true)
		return out.Count, out.Info, err
	}, func(r ProcessRow) int64 { return r.Process.ID })
}

// HostsByID reads the hosts of business biz with these bk_host_ids from
// list_biz_hosts, a page of ids per request, concurrently: their addresses
// and agent ids, which rows of other listings hold only joined or not at all.
func (s *CMDBService) HostsByID(ctx context.Context, biz int64, ids []int64) (map[int64]CMDBHost, error) {
	chunks := make([][]CMDBHost, (len(ids)+cmdbHostIDsPerRead-1)/cmdbHostIDsPerRead)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cmdbParallel)
	for k := range chunks {
		part := ids[k*cmdbHostIDsPerRead : min((k+1)*cmdbHostIDsPerRead, len(ids))]
		g.Go(func() error {
			vs := make([]any, len(part))
			for i, id := range part {
				vs[i] = id
			}
			hosts, err := s.ListBizHosts(gctx, HostQuery{BizID: biz, Filter: &HostFilter{Condition: "AND",
				Rules: []HostRule{{Field: "bk_host_id", Operator: "in", Value: vs}}}})
			chunks[k] = hosts
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make(map[int64]CMDBHost, len(ids))
	for _, chunk := range chunks {
		for _, h := range chunk {
			out[h.BkHostID] = h
		}
	}
	return out, nil
}
