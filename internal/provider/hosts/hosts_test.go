package hosts

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

func TestParseImportHosts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		list         string
		withSupplier bool
		want         []importHost
		err          string
	}{
		{list: "0:10.0.0.1,2:2001:db8::1", want: []importHost{{0, 0, "10.0.0.1"}, {2, 0, "2001:db8::1"}}},
		{list: "1:3:10.0.0.1,0:0:::1", withSupplier: true, want: []importHost{{1, 3, "10.0.0.1"}, {0, 0, "::1"}}},
		{list: "10.0.0.1", err: `IP "10.0.0.1" is not bk_cloud_id:ip`},
		{list: "-1:10.0.0.1", err: "bk_cloud_id must be a non-negative integer"},
		{list: "0:10.0.0.1", withSupplier: true, err: "is not bk_cloud_id:bk_supplier_id:ip"},
		{list: "0:-2:10.0.0.1", withSupplier: true, err: "bk_cloud_id and bk_supplier_id must be non-negative integers"},
		{list: "0:10.0.0.300", err: `"10.0.0.300" is not an IP address`},
		{list: "0:fe80::1%eth0", err: "without zone"},
		{list: "0:10.0.0.1,0:::ffff:10.0.0.1", err: `"0:::ffff:10.0.0.1" is listed twice`},
		{list: "0:2001:DB8::1,0:2001:db8::1", err: "listed twice"},
		{list: "0:10.0.0.1,1:10.0.0.1", want: []importHost{{0, 0, "10.0.0.1"}, {1, 0, "10.0.0.1"}}},
		{list: "", err: `"" is not bk_cloud_id:ip`},
	} {
		got, err := ParseImport(tc.list, tc.withSupplier, "IP")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err = %v, want %q", tc.list, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %+v, %v; want %+v", tc.list, got, err, tc.want)
		}
	}
}

func TestCompareHosts(t *testing.T) {
	t.Parallel()
	hosts := []gse.Host{{IP: "10.0.0.2", BkCloudID: 1}, {IP: "10.0.0.3", BkCloudID: 0}, {IP: "10.0.0.1", BkCloudID: 1}, {IP: "10.0.0.10", BkCloudID: 0}}
	slices.SortFunc(hosts, func(a, b gse.Host) int { return Compare(a.BkCloudID, a.IP, b.BkCloudID, b.IP) })
	var got []string
	for _, h := range hosts {
		got = append(got, h.Key())
	}
	// By cloud id, then by the IP as written (a string order, as the listings always had).
	want := []string{"0:10.0.0.10", "0:10.0.0.3", "1:10.0.0.1", "1:10.0.0.2"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestDiffBy(t *testing.T) {
	t.Parallel()
	id := func(s string) string { return s }
	for _, tc := range []struct {
		prior, plan          []string
		removed, added, kept []string
	}{
		{nil, []string{"a"}, nil, []string{"a"}, nil},
		{[]string{"a", "b"}, []string{"b", "c"}, []string{"a"}, []string{"c"}, []string{"b"}},
		{[]string{"a", "b"}, []string{"b", "a"}, nil, nil, []string{"b", "a"}},
		{[]string{"a"}, nil, []string{"a"}, nil, nil},
	} {
		removed, added, kept := plumbing.DiffBy(tc.prior, tc.plan, id)
		if !slices.Equal(removed, tc.removed) || !slices.Equal(added, tc.added) || !slices.Equal(kept, tc.kept) {
			t.Errorf("diffBy(%v, %v) = %v, %v, %v; want %v, %v, %v", tc.prior, tc.plan, removed, added, kept, tc.removed, tc.added, tc.kept)
		}
	}
}

func hostValue(cloud int64, ip string, supplier types.Int64) attr.Value {
	return types.ObjectValueMust(ObjectType.AttrTypes, map[string]attr.Value{
		"ip": types.StringValue(ip), "bk_cloud_id": types.Int64Value(cloud), "bk_supplier_id": supplier, "agent_id": types.StringNull(),
	})
}

func agentHostValue(id string, supplier types.Int64) attr.Value {
	return types.ObjectValueMust(ObjectType.AttrTypes, map[string]attr.Value{
		"ip": types.StringNull(), "bk_cloud_id": types.Int64Null(), "bk_supplier_id": supplier, "agent_id": types.StringValue(id),
	})
}

// packValues packs host objects as the protocol layer packs a hosts list.
func packValues(t *testing.T, els []attr.Value) types.String {
	t.Helper()
	hosts, unknown := make([]Model, len(els)), make([]bool, len(els))
	for i, el := range els {
		obj, ok := el.(types.Object)
		if !ok || obj.IsUnknown() {
			unknown[i] = true
			continue
		}
		a := obj.Attributes()
		h := &hosts[i]
		h.IP, _ = a["ip"].(types.String)
		h.BkCloudID, _ = a["bk_cloud_id"].(types.Int64)
		h.BkSupplierID, _ = a["bk_supplier_id"].(types.Int64)
		h.AgentID, _ = a["agent_id"].(types.String)
	}
	return Pack(hosts, unknown)
}

// hostsPlan: a reordered or respelled hosts list plans the prior value; any
// other change plans the configuration with bk_supplier_id defaulted to 0.
func TestHostsPlan(t *testing.T) {
	t.Parallel()
	zero, null := types.Int64Value(0), types.Int64Null()
	prior := packValues(t, []attr.Value{hostValue(0, "10.0.0.1", zero), hostValue(0, "2001:db8::1", zero), agentHostValue(agentA, zero)})
	for name, tc := range map[string]struct {
		config    []attr.Value
		keepPrior bool
	}{
		"same":          {[]attr.Value{hostValue(0, "10.0.0.1", null), hostValue(0, "2001:db8::1", null), agentHostValue(agentA, null)}, true},
		"reordered":     {[]attr.Value{agentHostValue(agentA, null), hostValue(0, "2001:db8::1", null), hostValue(0, "10.0.0.1", null)}, true},
		"respelled":     {[]attr.Value{hostValue(0, "::ffff:10.0.0.1", null), hostValue(0, "2001:DB8::1", zero), agentHostValue(strings.ToUpper(agentA), null)}, true},
		"as agent id":   {[]attr.Value{agentHostValue("0:10.0.0.1", null), hostValue(0, "2001:db8::1", null), agentHostValue(agentA, null)}, true},
		"supplier":      {[]attr.Value{hostValue(0, "10.0.0.1", types.Int64Value(1)), hostValue(0, "2001:db8::1", null), agentHostValue(agentA, null)}, false},
		"cloud":         {[]attr.Value{hostValue(1, "10.0.0.1", null), hostValue(0, "2001:db8::1", null), agentHostValue(agentA, null)}, false},
		"another agent": {[]attr.Value{hostValue(0, "10.0.0.1", null), hostValue(0, "2001:db8::1", null), agentHostValue(agentB, null)}, false},
		"one more":      {[]attr.Value{hostValue(0, "10.0.0.1", null), hostValue(0, "2001:db8::1", null), agentHostValue(agentA, null), hostValue(0, "10.0.0.3", null)}, false},
		"one less":      {[]attr.Value{hostValue(0, "10.0.0.1", null), agentHostValue(agentA, null)}, false},
		"an unknown":    {[]attr.Value{hostValue(0, "10.0.0.1", null), hostValue(0, "2001:db8::1", null), types.ObjectUnknown(ObjectType.AttrTypes)}, false},
	} {
		config := packValues(t, tc.config)
		req := planmodifier.StringRequest{ConfigValue: config, PlanValue: config, StateValue: prior}
		resp := &planmodifier.StringResponse{PlanValue: config}
		hostsPlan{}.PlanModifyString(context.Background(), req, resp)
		planned, diags := hostListOf(context.Background(), resp.PlanValue)
		if diags.HasError() {
			t.Fatalf("%s: %v", name, diags)
		}
		if got := resp.PlanValue.Equal(prior); got != tc.keepPrior {
			t.Errorf("%s: planned %v, prior kept %v, want %v", name, planned, got, tc.keepPrior)
		}
		if tc.keepPrior {
			continue
		}
		for i, el := range planned.Elements() {
			obj, _ := el.(types.Object)
			if obj.IsUnknown() {
				continue
			}
			if s, _ := obj.Attributes()["bk_supplier_id"].(types.Int64); s.IsNull() {
				t.Errorf("%s: host %d planned without bk_supplier_id", name, i)
			}
		}
	}
}

// checkHosts names the attribute in a list element's path, and in a set (whose
// element paths are whole values) after the set's path.
func TestCheckHostsMessages(t *testing.T) {
	t.Parallel()
	elType := types.ObjectType{AttrTypes: map[string]attr.Type{"ip": types.StringType, "bk_cloud_id": types.Int64Type}}
	el := func(cloud int64, ip string) attr.Value {
		return types.ObjectValueMust(elType.AttrTypes, map[string]attr.Value{"ip": types.StringValue(ip), "bk_cloud_id": types.Int64Value(cloud)})
	}
	els := []attr.Value{el(-1, "10.0.0.1"), el(0, "fe80::1%eth0"), el(0, "10.0.0"), el(0, "::1"), el(0, "0:0::1")}
	want := []string{
		"%s must be 0 or more (0 is the default cloud area), got -1.",
		`%s must be an IPv4 or IPv6 address without a zone; "fe80::1%%eth0" has a zone, write fe80::1.`,
		`%s must be an IPv4 or IPv6 address without a zone, such as 10.0.0.1 or 2001:db8::1; "10.0.0" is not an IPv4 or IPv6 address.`,
		"lists 0:0::1 (bk_cloud_id 0) more than once",
	}
	list := path.Root("ip_list")
	for name, tc := range map[string]struct {
		at       func(i int, attr string) path.Path
		subjects []string
	}{
		"list": {func(i int, a string) path.Path { return list.AtListIndex(i).AtName(a) }, []string{"ip_list[0].bk_cloud_id", "ip_list[1].ip", "ip_list[2].ip"}},
		"set":  {func(int, string) path.Path { return list }, []string{"ip_list: bk_cloud_id", "ip_list: ip", "ip_list: ip"}},
	} {
		var diags diag.Diagnostics
		checkHosts(list, els, tc.at, &diags)
		if len(diags) != len(want) {
			t.Fatalf("%s: %d diagnostics, want %d: %v", name, len(diags), len(want), diags)
		}
		for i, d := range diags {
			w := want[i]
			if i < len(tc.subjects) {
				w = fmt.Sprintf(w, tc.subjects[i])
			}
			if !strings.Contains(d.Detail(), w) {
				t.Errorf("%s: diagnostic %d = %q, want %q", name, i, d.Detail(), w)
			}
		}
	}
}

// A host of a schema with agent_id is given by exactly one form; agent ids
// are 36 hex characters or {bk_cloud_id}:{ip}, at most 64; the same host in
// both forms is a duplicate. Each error names the attribute and the forms.
func TestCheckHostsAgentID(t *testing.T) {
	t.Parallel()
	el := func(ip types.String, cloud types.Int64, agent types.String) attr.Value {
		return types.ObjectValueMust(ObjectType.AttrTypes, map[string]attr.Value{"ip": ip, "bk_cloud_id": cloud, "agent_id": agent, "bk_supplier_id": types.Int64Null()})
	}
	ip, cloud, agent := types.StringValue, types.Int64Value, types.StringValue
	noIP, noCloud, noAgent := types.StringNull(), types.Int64Null(), types.StringNull()
	for name, tc := range map[string]struct {
		els  []attr.Value
		want []string // one substring per diagnostic, in order
	}{
		"valid forms": {[]attr.Value{el(noIP, noCloud, agent(agentA)), el(noIP, noCloud, agent("1:10.0.0.1")), el(noIP, noCloud, agent("0:2001:db8::1")),
			el(ip("10.0.0.1"), cloud(0), noAgent), el(noIP, noCloud, agent(strings.ToUpper(agentB)))}, nil},
		"both forms":    {[]attr.Value{el(ip("10.0.0.1"), cloud(0), agent(agentA))}, []string{"hosts[0].agent_id is set together with ip or bk_cloud_id; a host is given either by agent_id"}},
		"agent + cloud": {[]attr.Value{el(noIP, cloud(0), agent(agentA))}, []string{"hosts[0].agent_id is set together with ip or bk_cloud_id"}},
		"neither":       {[]attr.Value{el(noIP, noCloud, noAgent)}, []string{"hosts[0].ip is unset and so is hosts[0].agent_id; a host is given either by agent_id (36 hex characters, or {bk_cloud_id}:{ip}) or by ip and bk_cloud_id"}},
		"ip alone":      {[]attr.Value{el(ip("10.0.0.1"), noCloud, noAgent)}, []string{"hosts[0].bk_cloud_id is unset; a host is given"}},
		"cloud alone":   {[]attr.Value{el(noIP, cloud(0), noAgent)}, []string{"hosts[0].ip is unset; a host is given"}},
		"bad agents": {[]attr.Value{el(noIP, noCloud, agent("0200000007525400f355781710390005465")), el(noIP, noCloud, agent("x:10.0.0.1")),
			el(noIP, noCloud, agent("0:fe80::1%eth0")), el(noIP, noCloud, agent(strings.Repeat("a", 65)))}, []string{
			`hosts[0].agent_id "0200000007525400f355781710390005465" is neither 36 hex characters`,
			`hosts[1].agent_id "x:10.0.0.1" is neither`, `hosts[2].agent_id "0:fe80::1%eth0" is neither`,
			"is 65 characters long; GSE takes at most 64"}},
		"duplicate across forms": {[]attr.Value{el(ip("::ffff:10.0.0.1"), cloud(3), noAgent), el(noIP, noCloud, agent("3:10.0.0.1"))}, []string{"lists agent_id 3:10.0.0.1 more than once"}},
		"duplicate agent ids":    {[]attr.Value{el(noIP, noCloud, agent(agentA)), el(noIP, noCloud, agent(strings.ToUpper(agentA)))}, []string{"more than once"}},
		"unknown agent":          {[]attr.Value{el(ip("10.0.0.1"), cloud(0), types.StringUnknown())}, nil},
	} {
		var diags diag.Diagnostics
		list := path.Root("hosts")
		checkHosts(list, tc.els, func(i int, a string) path.Path { return list.AtListIndex(i).AtName(a) }, &diags)
		if len(diags) != len(tc.want) {
			t.Errorf("%s: %d diagnostics, want %d: %v", name, len(diags), len(tc.want), diags)
			continue
		}
		for i, d := range diags {
			if !strings.Contains(d.Detail(), tc.want[i]) {
				t.Errorf("%s: diagnostic %d = %q, want %q", name, i, d.Detail(), tc.want[i])
			}
		}
	}
}

// NeedsGateway names the hosts only GSE 2.0 can address, and only when the
// client speaks ESB.
func TestNeedsGateway(t *testing.T) {
	t.Parallel()
	esb, err := gse.New(gse.Config{Endpoint: "http://127.0.0.1:1", AppCode: "a", AppSecret: "s", Username: "u"})
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gse.New(gse.Config{GatewayURL: "http://127.0.0.1:1/api/bk-gse/prod", AccessToken: "t"})
	if err != nil {
		t.Fatal(err)
	}
	hosts := []gse.Host{{IP: "10.0.0.1"}, {IP: "2001:db8::1", BkCloudID: 2}, {AgentID: agentA}, {IP: unmapIP("::ffff:10.0.0.2")}}
	err = NeedsGateway(esb, hosts)
	if err == nil || !strings.Contains(err.Error(), "2001:db8::1 (bk_cloud_id 2), agent_id "+agentA+". Set gateway_url") || strings.Contains(err.Error(), "10.0.0.") {
		t.Errorf("ESB: err = %v", err)
	}
	if err := NeedsGateway(gw, hosts); err != nil {
		t.Errorf("gateway: err = %v", err)
	}
	if err := NeedsGateway(nil, hosts); err != nil {
		t.Errorf("not configured: err = %v", err)
	}
}

// An agent id of the {bk_cloud_id}:{ip} form is sent in canonical form; a hex one as written.
func TestAgentAddress(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"00:::ffff:10.0.0.1": "0:10.0.0.1", "1:2001:db8::1": "1:2001:db8::1", agentA: agentA, strings.ToUpper(agentA): strings.ToUpper(agentA)} {
		if got := agentAddress(in); got != want {
			t.Errorf("agentAddress(%q) = %q, want %q", in, got, want)
		}
	}
}

// Two agent ids of the 36-hex form.
const (
	agentA = "0200000007525400f355781710390005465c"
	agentB = "0200000007525400f355781710390005465d"
)

// host_status keys a host by its address as written, IPv4-mapped or not; the
// client hosts of a list, alone or paired, are the hosts expanded.
func TestStatusKeyAndPairs(t *testing.T) {
	t.Parallel()
	null := types.Int64Null()
	list := NewList([]Model{
		{IP: types.StringValue("::ffff:10.0.0.1"), BkCloudID: types.Int64Value(0), BkSupplierID: null, AgentID: types.StringNull()},
		{IP: types.StringNull(), BkCloudID: null, BkSupplierID: null, AgentID: types.StringValue("00:::ffff:10.0.0.2")},
		{IP: types.StringNull(), BkCloudID: null, BkSupplierID: null, AgentID: types.StringValue(strings.ToUpper(agentA))},
	})
	wantKeys := []string{"0:::ffff:10.0.0.1", "00:::ffff:10.0.0.2", strings.ToUpper(agentA)}
	wantHosts := []gse.Host{{IP: "10.0.0.1"}, {AgentID: "0:10.0.0.2"}, {AgentID: strings.ToUpper(agentA)}}
	if got := list.Expand(); !reflect.DeepEqual(got, wantHosts) {
		t.Errorf("Expand() = %v, want %v", got, wantHosts)
	}
	pairs := list.Pairs()
	if got := plumbing.Each(pairs, Pair.StatusKey); !slices.Equal(got, wantKeys) {
		t.Errorf("status keys %q, want %q", got, wantKeys)
	}
	if got := plumbing.Each(pairs, Pair.Host); !reflect.DeepEqual(got, wantHosts) {
		t.Errorf("paired hosts %v, want %v", got, wantHosts)
	}
	if got := plumbing.Each(pairs, Pair.Model); !reflect.DeepEqual(got, list.Hosts()) {
		t.Errorf("paired models %v, want the list's", got)
	}
}
