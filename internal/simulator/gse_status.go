package simulator

import (
	"fmt"
	"sort"
)

// GSE's status reads: get_proc_status(_v2) and sync_proc_status, through
// ESB here and through the gateway in gateway.go.

type statusHost struct {
	IP           string `json:"ip"`
	BkCloudID    int64  `json:"bk_cloud_id"`
	BkSupplierID *int64 `json:"bk_supplier_id,omitempty"`
}

// statusEntry is one proc_infos entry. Through the gateway it carries the
// agent id at its top level, never in host: bk-bscp
// internal/components/gse/type.go ProcInfo (get_proc_status_v2) and
// SyncProcInfo (sync_proc_status) read bk_agent_id there, and bk-nodeman
// apps/adapters/api/gse/v2.py GseV2ApiHelper._list_proc_state copies
// proc_info["bk_agent_id"] into proc_info["host"] itself (so host is there too).
type statusEntry struct {
	Meta          wireMeta   `json:"meta"`
	Host          statusHost `json:"host"`
	BkAgentID     string     `json:"bk_agent_id,omitempty"`
	Flag          int        `json:"flag"`
	Status        int        `json:"status"`
	IsAuto        *bool      `json:"isauto,omitempty"`
	PID           int64      `json:"pid"`
	Version       string     `json:"version"`
	RegisterTime  int64      `json:"register_time"`
	LastStartTime int64      `json:"last_start_time"`
	ReportTime    int64      `json:"report_time"`
	CPUUsage      float64    `json:"cpu_usage"`
	MemUsage      float64    `json:"mem_usage"`
	Fd            int64      `json:"fd"`
	Disk          int64      `json:"disk"`
	Net           int64      `json:"net"`
}

// reported is p's status entry as its agent reports it now, by the agents'
// clock (clock.go), after its guard (agent_guard.go); the hub's lock held.
func (s *Server) reported(p *Process, v2 bool) statusEntry {
	now := s.clock.now()
	s.guard(p, now)
	return entryOf(p, v2, now.Unix())
}

// entryOf is p's status entry, reported at now (unix seconds, the agents' clock).
func entryOf(p *Process, v2 bool, now int64) statusEntry {
	e := statusEntry{
		Meta: wireMeta{Namespace: p.Namespace, Name: p.Name, Labels: p.labels},
		Host: statusHost{IP: p.IP, BkCloudID: p.BkCloudID},
		Flag: 2, Status: 2, PID: p.PID, Version: p.Version, RegisterTime: p.RegisterTime,
		LastStartTime: p.LastStartTime, ReportTime: now,
	}
	if p.Hosted {
		e.Flag = 1
	}
	if p.Running {
		e.Status, e.CPUUsage, e.MemUsage, e.Fd = 1, 0.5, 1.5, 12
	}
	if v2 {
		e.IsAuto = &p.Hosted
	} else {
		e.Host.BkSupplierID = &p.BkSupplierID
	}
	return e
}

func (g *GSE) status(api string, req *request) (any, *apiError) {
	if err := g.validate(req); err != nil {
		return nil, err
	}
	out := []statusEntry{}
	for _, h := range req.Hosts {
		if p, ok := g.procs[keyOf(req.Meta.Namespace, req.Meta.Name, h.BkCloudID, h.IP)]; ok {
			out = append(out, g.hub.reported(p, api == "get_proc_status_v2"))
		}
	}
	return map[string]any{"proc_infos": out}, nil
}

// syncStatus answers sync_proc_status; through the gateway agent names each
// entry's agent id (see statusEntry), nil through ESB.
func (g *GSE) syncStatus(req *request, agent func(*Process) string) (any, *apiError) {
	if req.Meta.Namespace == "" || req.Page == nil {
		return nil, badParams("meta.namespace and page are required")
	}
	if req.Page.Limit <= 0 || req.Page.Limit > 1000 || req.Page.Start < 0 {
		return nil, badParams("page.limit must be 1 to 1000 and page.start not negative")
	}
	var all []statusEntry
	for _, p := range g.procs {
		if p.Namespace == req.Meta.Namespace {
			e := g.hub.reported(p, true)
			if agent != nil {
				e.BkAgentID = agent(p)
			}
			all = append(all, e)
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		return fmt.Sprint(a.Meta.Name, a.Host.BkCloudID, a.Host.IP) < fmt.Sprint(b.Meta.Name, b.Host.BkCloudID, b.Host.IP)
	})
	page := []statusEntry{}
	if req.Page.Start < len(all) {
		page = all[req.Page.Start:min(len(all), req.Page.Start+req.Page.Limit)]
	}
	return map[string]any{"count": len(all), "proc_infos": page}, nil
}
