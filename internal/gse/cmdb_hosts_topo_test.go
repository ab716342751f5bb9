package gse_test

import (
	"context"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// ListBizHostsTopo selects hosts by the properties of their sets, modules
// and themselves, pages through them, and gives each host every set and
// module it is in, through ESB and the bk-cmdb gateway alike.
func TestListBizHostsTopo(t *testing.T) {
	eq := func(field string, v any) *gse.HostFilter {
		return &gse.HostFilter{Condition: "AND", Rules: []gse.HostRule{{Field: field, Operator: "equal", Value: v}}}
	}
	for _, gateway := range []bool{false, true} {
		t.Run(map[bool]string{false: "esb", true: "gateway"}[gateway], func(t *testing.T) {
			c, sim := newCMDB(t, 1234, gateway) // sets 101-107, two modules of 100 hosts each
			if err := sim.CMDB().AddHostToModule(5, 1004); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			// The test sets (bk_set_env "1") are 102, 104 and 106: hosts 201-400, 601-800, 1001-1200, and host 5.
			test, err := c.CMDB.ListBizHostsTopo(ctx, gse.TopoQuery{BizID: 2, SetFilter: eq("bk_set_env", "1")})
			if err != nil {
				t.Fatal(err)
			}
			if len(test) != 601 || test[0].Host.BkHostID != 5 || test[1].Host.BkHostID != 201 || test[600].Host.BkHostID != 1200 {
				t.Fatalf("%d hosts in the test sets (first %+v), want host 5 and 600 more from 201", len(test), test[0])
			}
			if topo := test[0].Topo; len(topo) != 2 || topo[0].BkSetID != 101 || topo[1].BkSetID != 102 || topo[1].Modules[0].BkModuleID != 1004 {
				t.Errorf("host 5's topology %+v, want set 101 (its first module) and set 102 with module 1004", topo)
			}
			if n := sim.Calls("cc/list_biz_hosts_topo"); n != 2 {
				t.Errorf("list_biz_hosts_topo called %d times for 601 hosts, want 2 pages", n)
			}
			some, err := c.CMDB.ListBizHostsTopo(ctx, gse.TopoQuery{BizID: 2, SetFilter: eq("bk_set_env", "1"), ModuleFilter: eq("bk_module_name", "mod-1004"),
				HostFilter: &gse.HostFilter{Condition: "AND", Rules: []gse.HostRule{{Field: "bk_host_id", Operator: "less", Value: 350}}}})
			if err != nil || len(some) != 50 || some[0].Host.BkHostID != 5 || some[49].Host.BkHostID != 349 {
				t.Errorf("%d hosts (%v), want host 5 and 301-349", len(some), err)
			}
			none, err := c.CMDB.ListBizHostsTopo(ctx, gse.TopoQuery{BizID: 2, SetFilter: eq("bk_set_env", "2")})
			if err != nil || len(none) != 0 {
				t.Errorf("%d hosts in experience sets (%v), want none", len(none), err)
			}
			_, err = c.CMDB.ListBizHostsTopo(ctx, gse.TopoQuery{BizID: 2, ModuleFilter: &gse.HostFilter{Condition: "AND", Rules: []gse.HostRule{{Field: "bk_module_name", Operator: "less", Value: "x"}}}})
			if ae, ok := err.(*gse.APIError); !ok || ae.Code != gse.CodeCMDBParams {
				t.Errorf("a comparison of a string: %v, want CMDB's 1199006", err)
			}
		})
	}
}
