package gse_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// ListProcStatus pages through sync_proc_status, 1000 entries a call, and
// returns every entry of the namespace once.
func TestListProcStatusPages(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	ctx := ctxTimeout(t, 10*time.Second)
	hosts := make([]gse.Host, 2500)
	for i := range hosts {
		hosts[i] = gse.Host{IP: fmt.Sprintf("10.0.%d.%d", i/250, i%250)}
	}
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, hosts, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Proc.RegisterProcInfo(ctx, gse.Meta{Namespace: "elsewhere", Name: "x"}, hosts[:3], spec); err != nil {
		t.Fatal(err)
	}
	all, err := c.Proc.ListProcStatus(ctx, "gse")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range all {
		if e.Meta.Namespace != "gse" || e.Meta.Name != "proc-test" {
			t.Fatalf("entry of another process: %+v", e.Meta)
		}
		seen[e.Host.Key()] = true
	}
	if len(all) != 2500 || len(seen) != 2500 {
		t.Fatalf("got %d entries (%d hosts), want 2500", len(all), len(seen))
	}
	if n := sim.Calls("sync_proc_status"); n != 3 {
		t.Fatalf("sync_proc_status called %d times, want 3 pages", n)
	}
	if none, err := c.Proc.ListProcStatus(ctx, "empty"); err != nil || len(none) != 0 {
		t.Fatalf("empty namespace: %+v %v", none, err)
	}
}
