package cmdb

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
)

// cmdbAgent is the agent id the simulator gives CMDB host id (even ids only).
func cmdbAgent(id int) string { return fmt.Sprintf("0200000007525400%020x", id) }

func TestSelectHosts(t *testing.T) {
	t.Parallel()
	found := []gse.CMDBHost{
		{BkHostID: 1, InnerIP: "10.0.0.1,192.168.0.1", AgentID: cmdbAgent(1)},
		{BkHostID: 2, InnerIPv6: "fd00::2"},
		{BkHostID: 3},
		{BkHostID: 4, InnerIP: "10.0.0.1", BkCloudID: 0},
		{BkHostID: 5, InnerIP: "10.0.0.1", BkCloudID: 1},
	}
	esb, gw := selectHosts(found, false), selectHosts(found, true)
	ids := func(s hostSelection) string { return fmt.Sprint(s.ids.Elements(), s.skippedIDs().Elements()) }
	if got, want := ids(esb), "[1 5] [2 3 4]"; got != want {
		t.Errorf("ESB: host ids and skipped %s, want %s", got, want)
	}
	if got, want := ids(gw), "[1 2 5] [3 4]"; got != want {
		t.Errorf("gateway: host ids and skipped %s, want %s", got, want)
	}
	if h, _ := hosts.Fields(esb.hosts.Elements()[0]); h.IP != "10.0.0.1" || h.AgentID != "" {
		t.Errorf("ESB: host 1 is %+v, want its first IPv4 address", h)
	}
	if h, _ := hosts.Fields(gw.hosts.Elements()[0]); h.AgentID != cmdbAgent(1) {
		t.Errorf("gateway: host 1 is %+v, want its agent id", h)
	}
	if n := len(esb.ipList.Elements()); n != 3 {
		t.Errorf("ESB: ip_list holds %d hosts, want 3 (the IPv6-only one too)", n)
	}
	w := esb.skippedWarning(false)
	for _, want := range []string{"bk_host_id 2: only an IPv6 address", "bk_host_id 3: no IPv4 or IPv6 address", "bk_host_id 4: the same address as bk_host_id 1", "set the provider's gateway_url"} {
		if !strings.Contains(w, want) {
			t.Errorf("the warning lacks %q:\n%s", want, w)
		}
	}
	if w := gw.skippedWarning(true); strings.Contains(w, "gateway_url") {
		t.Errorf("through the gateway, the warning still advises gateway_url:\n%s", w)
	}
}
