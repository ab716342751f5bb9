package gse_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// A status read of 2500 hosts is three calls of at most 1000, read at once;
// the entries come back chunk by chunk, in the order of the hosts' chunks.
func TestGetProcStatusV2Chunks(t *testing.T) {
	t.Parallel()
	c, sim, ctx, hosts := registeredOn(t, 2500)
	st, err := c.Proc.GetProcStatusV2(ctx, meta, hosts)
	if err != nil || len(st) != len(hosts) {
		t.Fatalf("%d entries, %v", len(st), err)
	}
	if n := sim.Calls("get_proc_status_v2"); n != 3 {
		t.Errorf("calls = %d, want 3", n)
	}
	chunkOf := map[string]int{}
	for i, h := range hosts {
		chunkOf[h.IP] = i / 1000
	}
	for i, e := range st {
		if got, want := chunkOf[e.Host.IP], i/1000; got != want {
			t.Fatalf("entry %d is %s, of chunk %d; want one of chunk %d", i, e.Host.IP, got, want)
		}
	}
}

// No hosts, no request.
func TestGetProcStatusV2NoHosts(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClient(t, simulator.Options{})
	if st, err := c.Proc.GetProcStatusV2(ctxTimeout(t, time.Minute), meta, nil); err != nil || len(st) != 0 {
		t.Fatalf("%v, %v", st, err)
	}
	if n := sim.Calls("get_proc_status_v2"); n != 0 {
		t.Errorf("calls = %d, want 0", n)
	}
}

// One chunk refused fails the read.
func TestGetProcStatusV2ChunkFails(t *testing.T) {
	t.Parallel()
	c, sim, ctx, hosts := registeredOn(t, 2500)
	sim.AddFault(simulator.Fault{API: "get_proc_status_v2", HTTPStatus: http.StatusBadRequest, Message: "refused"})
	if st, err := c.Proc.GetProcStatusV2(ctx, meta, hosts); err == nil {
		t.Fatalf("%d entries, no error", len(st))
	}
}

// registeredOn is a client, its simulator and a context, with the process
// registered on n hosts.
func registeredOn(t *testing.T, n int) (*gse.Client, *simulator.Server, context.Context, []gse.Host) {
	t.Helper()
	c, sim, _ := newClient(t, simulator.Options{})
	hosts := manyHosts(n)
	ctx := ctxTimeout(t, time.Minute)
	if _, err := c.Proc.RegisterProcInfo(ctx, meta, hosts, spec); err != nil {
		t.Fatal(err)
	}
	return c, sim, ctx, hosts
}
