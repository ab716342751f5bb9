package cmdb

import (
	"fmt"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// BenchmarkSelectHosts measures turning 10,000 CMDB hosts into the data
// source's lists. Run it with
// `go test ./internal/provider/cmdb/ -run '^$' -bench SelectHosts`.
func BenchmarkSelectHosts(b *testing.B) {
	found := make([]gse.CMDBHost, 10000)
	for i := range found {
		found[i] = gse.CMDBHost{BkHostID: int64(i + 1), InnerIP: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)}
	}
	for b.Loop() {
		selectHosts(found, false)
	}
}
