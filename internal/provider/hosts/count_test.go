package hosts

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A list's summary counts its hosts as a user writes them: 1 host, 2 hosts.
func TestListStringCounts(t *testing.T) {
	h := Model{IP: types.StringValue("10.0.0.1"), BkCloudID: types.Int64Value(0), AgentID: types.StringNull(), BkSupplierID: types.Int64Null()}
	if got := NewList([]Model{h}).String(); got != "<1 host>" {
		t.Errorf("one host: %q, want <1 host>", got)
	}
	if got := NewList([]Model{h, h}).String(); got != "<2 hosts>" {
		t.Errorf("two hosts: %q, want <2 hosts>", got)
	}
}
