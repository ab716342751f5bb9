package provider

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
		got, err := parseImportHosts(tc.list, tc.withSupplier, "IP")
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
	slices.SortFunc(hosts, func(a, b gse.Host) int { return compareHosts(a.BkCloudID, a.IP, b.BkCloudID, b.IP) })
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
		removed, added, kept := diffBy(tc.prior, tc.plan, id)
		if !slices.Equal(removed, tc.removed) || !slices.Equal(added, tc.added) || !slices.Equal(kept, tc.kept) {
			t.Errorf("diffBy(%v, %v) = %v, %v, %v; want %v, %v, %v", tc.prior, tc.plan, removed, added, kept, tc.removed, tc.added, tc.kept)
		}
	}
}

func TestHostIdentity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"10.0.0.1", "::ffff:10.0.0.1", true},
		{"2001:DB8::1", "2001:db8:0::1", true},
		{"10.0.0.1", "10.0.0.2", false},
		{"::1", "0:0:0:0:0:0:0:1", true},
	} {
		if got := hostIdentity(0, tc.a) == hostIdentity(0, tc.b); got != tc.same {
			t.Errorf("hostIdentity(0, %q) == hostIdentity(0, %q) is %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
	if hostIdentity(0, "10.0.0.1") == hostIdentity(1, "10.0.0.1") {
		t.Error("the cloud id is part of the identity")
	}
}

func hostValue(cloud int64, ip string, supplier types.Int64) attr.Value {
	return types.ObjectValueMust(hostObjectType.AttrTypes, map[string]attr.Value{
		"ip": types.StringValue(ip), "bk_cloud_id": types.Int64Value(cloud), "bk_supplier_id": supplier, "agent_id": types.StringNull(),
	})
}

// hostsPlan: a reordered or respelled hosts list plans the prior value; any
// other change plans the configuration with bk_supplier_id defaulted to 0.
func TestHostsPlan(t *testing.T) {
	t.Parallel()
	zero, null := types.Int64Value(0), types.Int64Null()
	prior := types.ListValueMust(hostObjectType, []attr.Value{hostValue(0, "10.0.0.1", zero), hostValue(0, "2001:db8::1", zero)})
	for name, tc := range map[string]struct {
		config    []attr.Value
		keepPrior bool
	}{
		"same":       {[]attr.Value{hostValue(0, "10.0.0.1", null), hostValue(0, "2001:db8::1", null)}, true},
		"reordered":  {[]attr.Value{hostValue(0, "2001:db8::1", null), hostValue(0, "10.0.0.1", null)}, true},
		"respelled":  {[]attr.Value{hostValue(0, "::ffff:10.0.0.1", null), hostValue(0, "2001:DB8::1", zero)}, true},
		"supplier":   {[]attr.Value{hostValue(0, "10.0.0.1", types.Int64Value(1)), hostValue(0, "2001:db8::1", null)}, false},
		"cloud":      {[]attr.Value{hostValue(1, "10.0.0.1", null), hostValue(0, "2001:db8::1", null)}, false},
		"one more":   {[]attr.Value{hostValue(0, "10.0.0.1", null), hostValue(0, "2001:db8::1", null), hostValue(0, "10.0.0.3", null)}, false},
		"one less":   {[]attr.Value{hostValue(0, "10.0.0.1", null)}, false},
		"an unknown": {[]attr.Value{hostValue(0, "10.0.0.1", null), types.ObjectUnknown(hostObjectType.AttrTypes)}, false},
	} {
		config := types.ListValueMust(hostObjectType, tc.config)
		req := planmodifier.ListRequest{ConfigValue: config, PlanValue: config, StateValue: prior}
		resp := &planmodifier.ListResponse{PlanValue: config}
		hostsPlan{}.PlanModifyList(context.Background(), req, resp)
		if got := resp.PlanValue.Equal(prior); got != tc.keepPrior {
			t.Errorf("%s: planned %v, prior kept %v, want %v", name, resp.PlanValue, got, tc.keepPrior)
		}
		if tc.keepPrior {
			continue
		}
		for i, el := range resp.PlanValue.Elements() {
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
