package gse

import "context"

// ListProcStatus reads every status entry of a namespace with sync_proc_status,
// a page of 1000 at a time, until it has the count the server reports or a
// page comes back empty. Entries are GSE's cached view and can be minutes
// old: confirm what matters with GetProcStatusV2. An entry seen on two pages
// (the list shifted while paging) is kept once. Through the gateway each
// entry's host is its agent id (ProcStatus.Target): bk-bscp's SyncProcInfo
// names it by bk_agent_id alone, and agent-id installations refuse {cloud}:{ip}.
//
// GSE API: sync_proc_status (ESB), /api/v2/proc/sync_proc_status (gateway).
func (s *ProcService) ListProcStatus(ctx context.Context, namespace string) ([]ProcStatus, error) {
	var all []ProcStatus
	seen := map[string]bool{}
	for start := 0; ; {
		count, page, err := s.syncProcStatus(ctx, namespace, start, chunkSize)
		if err != nil {
			return nil, err
		}
		for _, e := range page {
			if s.client.gateway != nil && e.BkAgentID != "" {
				e.Host.sentAs = e.BkAgentID
			}
			k := e.Meta.Name + "\x00" + e.Host.Key()
			if !seen[k] {
				seen[k] = true
				all = append(all, e)
			}
		}
		start += len(page)
		if len(page) == 0 || start >= count {
			return all, nil
		}
	}
}

// syncProcStatus reads one page of sync_proc_status (limit at most 1000).
func (s *ProcService) syncProcStatus(ctx context.Context, namespace string, start, limit int) (int, []ProcStatus, error) {
	body := struct {
		Meta struct {
			Namespace string `json:"namespace"`
		} `json:"meta"`
		Page struct {
			Start int `json:"start"`
			Limit int `json:"limit"`
		} `json:"page"`
	}{}
	body.Meta.Namespace = namespace
	body.Page.Start, body.Page.Limit = start, min(limit, chunkSize)
	var out statusReply
	err := s.client.call(ctx, familyGSE, "sync_proc_status", body, &out, true)
	return out.Count, out.ProcInfos, err
}
