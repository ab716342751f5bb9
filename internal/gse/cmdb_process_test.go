package gse_test

import (
	"errors"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// A business's processes, through ESB and the bk-cmdb gateway: every row
// once, in bk_process_id order, in ⌈rows/1000⌉ requests; the rows' hosts
// then in ⌈hosts/500⌉.
func TestListProcessRelatedInfo(t *testing.T) {
	t.Parallel()
	for _, gateway := range []bool{false, true} {
		c, sim := newCMDB(t, 1200, gateway)
		ctx := ctxTimeout(t, 10*time.Second)
		rows, err := c.CMDB.ListProcessRelatedInfo(ctx, gse.ProcessQuery{BizID: simulator.CMDBBizID})
		// 12 modules, each host with nginx and agent, the first module's with legacy too.
		if err != nil || len(rows) != 1200*2+100 {
			t.Fatalf("gateway %v: %d rows, %v", gateway, len(rows), err)
		}
		for i := 1; i < len(rows); i++ {
			if rows[i].Process.ID <= rows[i-1].Process.ID {
				t.Fatalf("rows %d and %d out of order", i-1, i)
			}
		}
		if n := sim.Calls("cc/list_process_related_info"); n != 3 {
			t.Errorf("gateway %v: %d requests for 2,500 rows, want 3", gateway, n)
		}
		ids := map[int64]bool{}
		var list []int64
		for _, r := range rows {
			if !ids[r.Host.ID] {
				ids[r.Host.ID] = true
				list = append(list, r.Host.ID)
			}
		}
		before := sim.Calls("cc/list_biz_hosts")
		hosts, err := c.CMDB.HostsByID(ctx, simulator.CMDBBizID, list)
		if err != nil || len(hosts) != 1200 || hosts[150].FirstIPv4() != "10.0.0.150" {
			t.Fatalf("gateway %v: %d hosts (%+v), %v", gateway, len(hosts), hosts[150], err)
		}
		if n := sim.Calls("cc/list_biz_hosts") - before; n != 3 {
			t.Errorf("gateway %v: %d host reads for 1,200 hosts, want 3", gateway, n)
		}
	}
}

// Modules, the process filter (process_property_filter) and a page limit
// the server refuses.
func TestListProcessRelatedInfoSelects(t *testing.T) {
	t.Parallel()
	c, _ := newCMDB(t, 300, true)
	ctx := ctxTimeout(t, 10*time.Second)
	rows, err := c.CMDB.ListProcessRelatedInfo(ctx, gse.ProcessQuery{BizID: simulator.CMDBBizID, ModuleIDs: []int64{1002},
		Filter: &gse.HostFilter{Condition: "AND", Rules: []gse.HostRule{{Field: "bk_process_name", Operator: "in", Value: []any{"nginx"}}}}})
	if err != nil || len(rows) != 100 || rows[0].Module.ID != 1002 || rows[0].Process.Name != "nginx" || *rows[0].Process.ProcNum != 2 {
		t.Fatalf("%d rows, %+v, %v", len(rows), rows, err)
	}
	_, err = c.CMDB.ListProcessRelatedInfo(ctx, gse.ProcessQuery{BizID: simulator.CMDBBizID,
		Filter: &gse.HostFilter{Condition: "AND", Rules: []gse.HostRule{{Field: "priority", Operator: "less", Value: "3"}}}})
	var ae *gse.APIError
	if !errors.As(err, &ae) || ae.Code != gse.CodeCMDBParams || ae.Message != "'process_property_filter.rules[0].value' data parameter verification does not pass" {
		t.Fatalf("a string to compare: %v", err)
	}
}
