package gse

import "context"

// ListProcStatus reads every status entry of a namespace with sync_proc_status,
// a page of 1000 at a time, until it has the count the server reports or a
// page comes back empty. Entries are GSE's cached view and can be minutes
// old: confirm what matters with GetProcStatusV2. An entry seen on two pages
// (the list shifted while paging) is kept once.
func (c *Client) ListProcStatus(ctx context.Context, namespace string) ([]ProcStatus, error) {
	var all []ProcStatus
	seen := map[string]bool{}
	for start := 0; ; {
		count, page, err := c.SyncProcStatus(ctx, namespace, start, chunkSize)
		if err != nil {
			return nil, err
		}
		for _, e := range page {
			k := e.Meta.Name + "\x00" + e.Host.Addr()
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
