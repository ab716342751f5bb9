package simulator_test

import "testing"

// list_biz_hosts_topo refuses what ListBizHostsTopoParameter.Validate
// refuses: page.limit unset (1199010) or above 500 (1199035), and a filter
// the query builder refuses (1199006), whichever of the three it is.
func TestListBizHostsTopoRefusals(t *testing.T) {
	_, srv := healthSim(t, 10)
	for body, want := range map[string]int{
		`{"page":{"start":0}}`:   1199010,
		`{"page":{"limit":501}}`: 1199035,
		`{"page":{"limit":10},"module_property_filter":{"condition":"AND","rules":[]}}`:                                                   1199006,
		`{"page":{"limit":10},"set_property_filter":{"condition":"AND","rules":[{"field":"bk_set_env","operator":"less","value":"1"}]}}`:  1199006,
		`{"page":{"limit":10},"set_property_filter":{"condition":"AND","rules":[{"field":"bk_set_env","operator":"equal","value":"3"}]}}`: 0,
	} {
		if _, code := post(t, srv, "/api/v3/hosts/app/2/list_hosts_topo", "app", body); code != want {
			t.Errorf("%s: code %d, want %d", body, code, want)
		}
	}
}
