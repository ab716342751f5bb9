package health_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
)

// Ports takes the enabled TCP and TCP6 rows, every port of a range and of a
// list, each once; a port CMDB's format refuses is an error naming it.
func TestPorts(t *testing.T) {
	t.Parallel()
	got, err := health.Ports([]health.BindInfo{
		{Enable: true, Port: "8000-8002", Protocol: "TCP"},
		{Enable: true, Port: "80,8001", Protocol: "TCP6"},
		{Enable: true, Port: "53", Protocol: "UDP"},
		{Enable: false, Port: "443", Protocol: "TCP"},
		{Enable: false, Port: "not checked", Protocol: "TCP"},
	})
	if want := []int{80, 8000, 8001, 8002}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Ports: %v %v, want %v", got, err, want)
	}
	for _, bad := range []string{"", "0", "65536", "8002-8000", "80, 81", "080", "8000-", "http"} {
		_, err := health.Ports([]health.BindInfo{{Enable: true, Port: "22", Protocol: "TCP"}, {Enable: true, Port: bad, Protocol: "TCP"}})
		if err == nil || !strings.Contains(err.Error(), "bind_info row 2: port \""+bad+"\"") {
			t.Errorf("port %q: error %v", bad, err)
		}
	}
}
