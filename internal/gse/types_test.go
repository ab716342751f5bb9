package gse

import "testing"

// One host has one key in every spelling and form the provider accepts: an
// IPv4-mapped or differently written IPv6 address, an agent id of the
// {bk_cloud_id}:{ip} form, a hex agent id in either case.
func TestHostKey(t *testing.T) {
	t.Parallel()
	const hex = "0200000007525400f355781710390005465c"
	for _, tc := range []struct {
		a, b Host
		same bool
	}{
		{Host{IP: "10.0.0.1"}, Host{IP: "::ffff:10.0.0.1"}, true},
		{Host{IP: "2001:DB8::1"}, Host{IP: "2001:db8:0::1"}, true},
		{Host{IP: "10.0.0.1"}, Host{IP: "10.0.0.2"}, false},
		{Host{IP: "::1"}, Host{IP: "0:0:0:0:0:0:0:1"}, true},
		{Host{IP: "10.0.0.1"}, Host{IP: "10.0.0.1", BkCloudID: 1}, false},
		{Host{IP: "10.0.0.1", BkCloudID: 2}, Host{AgentID: "2:::ffff:10.0.0.1"}, true},
		{Host{IP: "2001:db8::1"}, Host{AgentID: "0:2001:DB8::1"}, true},
		{Host{IP: "10.0.0.1"}, Host{AgentID: "1:10.0.0.1"}, false},
		{Host{AgentID: hex}, Host{AgentID: "0200000007525400F355781710390005465C"}, true},
		{Host{AgentID: hex}, Host{AgentID: "0200000007525400f355781710390005465d"}, false},
	} {
		if got := tc.a.Key() == tc.b.Key(); got != tc.same {
			t.Errorf("Key of %v (%q) == Key of %v (%q) is %v, want %v", tc.a, tc.a.Key(), tc.b, tc.b.Key(), got, tc.same)
		}
		if tc.a.AgentID == "" && tc.b.AgentID == "" && tc.a.JobIP().Key() != tc.a.Key() {
			t.Errorf("JobIP.Key of %v is %q, Host.Key %q", tc.a, tc.a.JobIP().Key(), tc.a.Key())
		}
	}
}
