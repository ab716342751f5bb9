package gse_test

import (
	"context"
	"maps"
	"slices"
	"testing"
)

// BizModules asks find_module_batch 500 ids at a time (its limit) and
// reports those of the business; ObjectFields lists the business's custom
// host fields beside CMDB's own, through ESB and the bk-cmdb gateway alike.
func TestCMDBTopoAndFields(t *testing.T) {
	for _, gateway := range []bool{false, true} {
		t.Run(map[bool]string{false: "esb", true: "gateway"}[gateway], func(t *testing.T) {
			c, sim := newCMDB(t, 300, gateway) // modules 1001-1003, sets 101-102
			ids := []int64{1003, 1004}
			for id := int64(5000); len(ids) < 501; id++ {
				ids = append(ids, id)
			}
			found, err := c.CMDB.BizModules(context.Background(), 2, ids)
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Collect(maps.Keys(found)); !slices.Equal(got, []int64{1003}) {
				t.Errorf("modules found %v, want [1003]", got)
			}
			if n := sim.Calls("cc/find_module_batch"); n != 2 {
				t.Errorf("find_module_batch called %d times for 501 ids, want 2", n)
			}
			sets, err := c.CMDB.BizSets(context.Background(), 2, []int64{101, 103})
			if err != nil || !sets[101] || sets[103] {
				t.Errorf("sets found %v (%v), want 101 alone", sets, err)
			}
			fields, err := c.CMDB.ObjectFields(context.Background(), 2, "host")
			if err != nil || !slices.Contains(fields, "rack_unit") || !slices.Contains(fields, "bk_os_type") {
				t.Errorf("host fields %v (%v), want rack_unit and bk_os_type among them", fields, err)
			}
		})
	}
}
