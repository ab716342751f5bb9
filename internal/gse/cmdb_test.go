package gse_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

const cmdbStage = "/api/bk-cmdb/prod"

// newCMDB serves a simulator with n CMDB hosts; gateway: the client lists
// hosts through the bk-cmdb gateway (under cmdbStage), else through ESB.
func newCMDB(t *testing.T, n int, gateway bool) (*gse.Client, *simulator.Server) {
	t.Helper()
	sim := simulator.New(simulator.Options{AppCode: testCode, AppSecret: testSecret, CMDBHosts: n, RecordRequests: true})
	mux := http.NewServeMux()
	mux.Handle(cmdbStage+"/", http.StripPrefix(cmdbStage, sim))
	mux.Handle("/", sim)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	cfg := gse.Config{
		Endpoint: srv.URL, AppCode: testCode, AppSecret: testSecret, Username: "admin",
		MaxRetries: 3, RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond,
	}
	if gateway {
		cfg.CMDBGatewayURL = srv.URL + cmdbStage + "/"
	}
	c, err := gse.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, sim
}

func TestListBizHostsPagesBothForms(t *testing.T) {
	for _, gateway := range []bool{false, true} {
		t.Run(map[bool]string{false: "esb", true: "gateway"}[gateway], func(t *testing.T) {
			c, sim := newCMDB(t, 1234, gateway)
			hosts, err := c.CMDB.ListBizHosts(ctxTimeout(t, 10*time.Second), gse.HostQuery{BizID: simulator.CMDBBizID})
			if err != nil {
				t.Fatal(err)
			}
			want := sim.CMDB().Hosts()
			if len(hosts) != len(want) {
				t.Fatalf("got %d hosts, want %d", len(hosts), len(want))
			}
			for i, h := range hosts {
				w := want[i]
				if h.BkHostID != w.ID || h.InnerIP != w.InnerIP || h.InnerIPv6 != w.InnerIPv6 || h.AgentID != w.AgentID {
					t.Fatalf("host %d: got %+v, want %+v", i, h, w)
				}
			}
			// 1234 hosts: pages at 0, 499 and 998, each of 500.
			if n := sim.Calls("cc/list_biz_hosts"); n != 3 {
				t.Errorf("list_biz_hosts called %d times, want 3", n)
			}
			for _, r := range sim.Requests() {
				gw := strings.HasPrefix(r.Path, "/api/v3/hosts/app/2/list_hosts")
				if gw != gateway {
					t.Errorf("request to %s, gateway form %v", r.Path, gateway)
				}
				if inBody := strings.Contains(string(r.Body), testSecret); inBody == gateway {
					t.Errorf("%s: secret in the body %v, want %v", r.Path, inBody, !gateway)
				}
			}
		})
	}
}

func TestCMDBHostFirstIPv4(t *testing.T) {
	h := gse.CMDBHost{InnerIP: "10.0.0.10, 192.168.0.10"}
	if got := h.FirstIPv4(); got != "10.0.0.10" {
		t.Errorf("FirstIPv4() = %q, want 10.0.0.10", got)
	}
}

func TestListBizHostsSelects(t *testing.T) {
	c, sim := newCMDB(t, 1000, false)
	all := sim.CMDB().Hosts()
	count := func(keep func(simulator.CMDBHost) bool) int {
		n := 0
		for _, h := range all {
			if keep(h) {
				n++
			}
		}
		return n
	}
	filter := &gse.HostFilter{Condition: "AND", Rules: []gse.HostRule{
		{Field: "bk_os_type", Operator: "equal", Value: "2"},
		{Condition: "OR", Rules: []gse.HostRule{
			{Field: "bk_host_id", Operator: "less", Value: 300},
			{Field: "bk_host_id", Operator: "greater", Value: 900},
		}},
	}}
	for name, tc := range map[string]struct {
		q    gse.HostQuery
		want int
	}{
		"sets":    {gse.HostQuery{SetIDs: []int64{simulator.CMDBSetID(1)}}, count(func(h simulator.CMDBHost) bool { return h.SetID == simulator.CMDBSetID(1) })},
		"modules": {gse.HostQuery{ModuleIDs: []int64{simulator.CMDBModuleID(0), simulator.CMDBModuleID(7)}}, 200},
		"filter": {gse.HostQuery{Filter: filter}, count(func(h simulator.CMDBHost) bool {
			return h.OSType == "2" && (h.ID < 300 || h.ID > 900)
		})},
		"other business": {gse.HostQuery{BizID: 3}, 0},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.q.BizID == 0 {
				tc.q.BizID = simulator.CMDBBizID
			}
			hosts, err := c.CMDB.ListBizHosts(ctxTimeout(t, 10*time.Second), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if len(hosts) != tc.want || tc.want == 0 && name != "other business" {
				t.Fatalf("got %d hosts, want %d", len(hosts), tc.want)
			}
			if !slices.IsSortedFunc(hosts, func(a, b gse.CMDBHost) int { return int(a.BkHostID - b.BkHostID) }) {
				t.Error("hosts are not ordered by bk_host_id")
			}
		})
	}
}

func TestListBizHostsFleetChangingWhilePaged(t *testing.T) {
	c, sim := newCMDB(t, 1500, false)
	// The first page sees host 1 leave, a later one sees it come back: the
	// pages disagree, and the second read (no churn left) is consistent.
	sim.CMDB().Churn(2)
	hosts, err := c.CMDB.ListBizHosts(ctxTimeout(t, 10*time.Second), gse.HostQuery{BizID: simulator.CMDBBizID})
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 1500 || hosts[0].BkHostID != 1 {
		t.Fatalf("got %d hosts from bk_host_id %d, want 1500 from 1", len(hosts), hosts[0].BkHostID)
	}
	// The first read stops at the page that saw the change (the pages still
	// in flight are cancelled); the second reads all 4.
	if n := sim.Calls("cc/list_biz_hosts"); n < 6 || n > 8 {
		t.Errorf("list_biz_hosts called %d times, want 6 to 8 (a read cut short, then 4 pages)", n)
	}

	// A fleet that never holds still is reported, not returned in part.
	sim.CMDB().Churn(1 << 20)
	_, err = c.CMDB.ListBizHosts(ctxTimeout(t, 10*time.Second), gse.HostQuery{BizID: simulator.CMDBBizID})
	var changed *gse.FleetChangedError
	if !errors.As(err, &changed) || changed.Reads != 3 {
		t.Fatalf("err = %v, want a FleetChangedError after 3 reads", err)
	}
}

func TestListBizHostsRetriesAndReportsErrors(t *testing.T) {
	c, sim := newCMDB(t, 600, false)
	sim.AddFault(simulator.Fault{API: "cc/list_biz_hosts", Code: 1306429, Message: "rate limited"})
	hosts, err := c.CMDB.ListBizHosts(ctxTimeout(t, 10*time.Second), gse.HostQuery{BizID: simulator.CMDBBizID})
	if err != nil || len(hosts) != 600 {
		t.Fatalf("after a rate limit: %d hosts, %v; want 600", len(hosts), err)
	}
	_, err = c.CMDB.ListBizHosts(ctxTimeout(t, 10*time.Second), gse.HostQuery{BizID: simulator.CMDBBizID,
		Filter: &gse.HostFilter{Condition: "XOR"}})
	var apiErr *gse.APIError
	if !errors.As(err, &apiErr) || apiErr.API != "list_biz_hosts" || apiErr.Code != 1199006 {
		t.Fatalf("err = %v, want list_biz_hosts' 1199006", err)
	}
}

// TestListBizHostsFilterRefusals sends the filters bk-cmdb's querybuilder
// refuses: each answers 1199006 naming the key, as ListBizHosts does.
func TestListBizHostsFilterRefusals(t *testing.T) {
	c, _ := newCMDB(t, 10, false)
	atom := func(field, op string, v any) gse.HostRule { return gse.HostRule{Field: field, Operator: op, Value: v} }
	and := func(rules ...gse.HostRule) *gse.HostFilter { return &gse.HostFilter{Condition: "AND", Rules: rules} }
	for name, tc := range map[string]struct {
		filter *gse.HostFilter
		key    string
	}{
		"less with a string":            {and(atom("bk_service_term", "less", "3")), "rules[0].value"},
		"greater_or_equal with a bool":  {and(atom("bk_host_id", "greater_or_equal", true)), "rules[0].value"},
		"contains with a number":        {and(atom("bk_cloud_id", "contains", 1)), "rules[0].value"},
		"not_begins_with empty":         {and(atom("bk_host_name", "not_begins_with", "")), "rules[0].value"},
		"ends_with a list":              {and(atom("bk_host_name", "ends_with", []any{"a"})), "rules[0].value"},
		"in mixing types":               {and(atom("bk_cloud_id", "in", []any{0, "1"})), "rules[0].value"},
		"not_in with a scalar":          {and(atom("bk_cloud_id", "not_in", 0)), "rules[0].value"},
		"between":                       {and(atom("bk_host_id", "between", []any{1, 5})), "rules[0].operator"},
		"field pattern":                 {and(atom("$where", "equal", "x")), "rules[0].field"},
		"empty group":                   {and(gse.HostRule{Condition: "OR"}), "rules[0].rules"},
		"empty root":                    {and(), "rules"},
		"condition":                     {&gse.HostFilter{Condition: "XOR", Rules: []gse.HostRule{atom("bk_host_id", "equal", 1)}}, "condition"},
		"second rule of a nested group": {and(gse.HostRule{Condition: "OR", Rules: []gse.HostRule{atom("bk_host_id", "equal", 1), atom("bk_host_id", "less", "2")}}), "rules[0].rules[1].value"},
		"deeper than 3": {and(gse.HostRule{Condition: "OR", Rules: []gse.HostRule{
			{Condition: "AND", Rules: []gse.HostRule{atom("bk_host_id", "equal", 1)}},
		}}), "rules"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := c.CMDB.ListBizHosts(ctxTimeout(t, 10*time.Second), gse.HostQuery{BizID: simulator.CMDBBizID, Filter: tc.filter})
			var apiErr *gse.APIError
			want := "'host_property_filter." + tc.key + "' data parameter verification does not pass"
			if !errors.As(err, &apiErr) || apiErr.Code != gse.CodeCMDBParams || apiErr.Message != want {
				t.Fatalf("err = %v, want 1199006 %q", err, want)
			}
		})
	}
}

// TestListBizHostsInvalidIPv6: an IPv6 value bk-cmdb cannot expand fails the
// listing with host_server's 1110001, whose message names nothing.
func TestListBizHostsInvalidIPv6(t *testing.T) {
	c, _ := newCMDB(t, 100, false)
	_, err := c.CMDB.ListBizHosts(ctxTimeout(t, 10*time.Second), gse.HostQuery{BizID: simulator.CMDBBizID,
		Filter: &gse.HostFilter{Condition: "AND", Rules: []gse.HostRule{{Field: "bk_host_innerip_v6", Operator: "in", Value: []any{"fd00::1g"}}}}})
	var apiErr *gse.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 1110001 || apiErr.Message != "Query Host Failed" {
		t.Fatalf("err = %v, want 1110001 Query Host Failed", err)
	}
}

// TestListBizHostsFilterSemantics: comparisons take a number on any int
// field, custom ones too; the string operators are unescaped regexes, and
// only contains ignores case; a number never equals a string.
func TestListBizHostsFilterSemantics(t *testing.T) {
	c, _ := newCMDB(t, 100, false)
	one := func(field, op string, v any) *gse.HostFilter {
		return &gse.HostFilter{Condition: "AND", Rules: []gse.HostRule{{Field: field, Operator: op, Value: v}}}
	}
	for name, tc := range map[string]struct {
		filter *gse.HostFilter
		want   int
	}{
		"custom int field":            {one(simulator.CMDBCustomIntField, "greater_or_equal", 40), 6}, // i%42+1 >= 40: 39-41, 81-83
		"bk_service_term":             {one("bk_service_term", "less", 2.5), 40},                      // i%5+1 in {1, 2}
		"begins_with: . matches any":  {one("bk_host_name", "begins_with", "host.0001"), 10},          // host-00010 to host-00019
		"begins_with escaped":         {one("bk_host_name", "begins_with", `host\.0001`), 0},
		"contains ignores case":       {one("bk_host_name", "contains", "HOST-0002"), 10},
		"begins_with keeps case":      {one("bk_host_name", "begins_with", "HOST-0002"), 0},
		"not_contains keeps case":     {one("bk_host_name", "not_contains", "HOST"), 100},
		"ends_with anchors":           {one("bk_host_name", "ends_with", "[12]"), 20},
		"regex on a number field":     {one("bk_cloud_id", "begins_with", "0"), 0},
		"not_ regex on a number":      {one("bk_cloud_id", "not_begins_with", "0"), 100},
		"equal: a string is no int":   {one("bk_cloud_id", "equal", "0"), 0},
		"equal: a number is a number": {one("bk_cloud_id", "equal", 0), 100},
		"IPv6 equal expands":          {one("bk_host_innerip_v6", "equal", "fd00::19"), 1},
		"IPv6 in expands":             {one("bk_host_innerip_v6", "in", []any{"fd00::19", "FD00:0:0::4b"}), 2},
		"IPv6 contains as stored":     {one("bk_host_innerip_v6", "contains", "fd00::19"), 0},
		"an array: in any element":    {one("bk_host_innerip", "in", []any{"192.168.0.10", "10.0.0.11"}), 2},
		"an array: not_equal to none": {one("bk_host_innerip", "not_equal", "192.168.0.10"), 99},
	} {
		t.Run(name, func(t *testing.T) {
			hosts, err := c.CMDB.ListBizHosts(ctxTimeout(t, 10*time.Second), gse.HostQuery{BizID: simulator.CMDBBizID, Filter: tc.filter})
			if err != nil || len(hosts) != tc.want {
				t.Fatalf("got %d hosts, %v; want %d", len(hosts), err, tc.want)
			}
		})
	}
}
