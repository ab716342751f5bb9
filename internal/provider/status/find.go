package status

import (
	"context"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Find reads the status of a process on hosts (get_proc_status_v2)
// and indexes the hosts where it is registered by host identity
// (gse.Host.Key): a host missing from the index does not have the process.
// Every reader of GSE status goes through it, such as Read (the refresh and the
// gse_process_status data source), the read after an apply (Applied), the
// teardown of hosts whose unregister failed, and wait_running's check.
func Find(ctx context.Context, c *gse.Client, meta gse.Meta, hosts []gse.Host) (map[string]gse.ProcStatus, error) {
	entries, err := c.Proc.GetProcStatusV2(ctx, meta, hosts)
	if err != nil {
		return nil, err
	}
	out := make(map[string]gse.ProcStatus, len(entries))
	for _, e := range entries {
		if e.Status != gse.StateUnregistered {
			out[e.Host.Key()] = e
		}
	}
	return out, nil
}
