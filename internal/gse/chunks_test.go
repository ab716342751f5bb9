package gse_test

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// gate holds the requests to one API until want of them are in flight at
// once, or until a second has passed, and records the most it saw together:
// calls sent one after the other never reach want, and the test says so.
type gate struct {
	api  string
	want int

	mu       sync.Mutex
	inFlight int
	most     int
	full     chan struct{}
}

func newGate(api string, want int) *gate {
	return &gate{api: api, want: want, full: make(chan struct{})}
}

func (g *gate) front(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/"+g.api+"/") && !strings.HasSuffix(r.URL.Path, "/"+g.api) {
			next.ServeHTTP(w, r)
			return
		}
		g.mu.Lock()
		g.inFlight++
		g.most = max(g.most, g.inFlight)
		if g.inFlight == g.want {
			close(g.full)
		}
		g.mu.Unlock()
		select {
		case <-g.full:
		case <-time.After(time.Second):
		}
		next.ServeHTTP(w, r)
		g.mu.Lock()
		g.inFlight--
		g.mu.Unlock()
	})
}

func (g *gate) seen() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.most
}

// The chunks of a large host list are in flight together: one after the
// other, they would hold a create of 10,000 hosts for ten round trips before
// its task.
func TestSyncChunksInFlightTogether(t *testing.T) {
	t.Parallel()
	g := newGate("register_proc_info", 3)
	c, sim, _ := newClientBehind(t, simulator.Options{}, g.front, nil)
	hosts := manyHosts(2500)
	done, err := c.Proc.RegisterProcInfo(ctxTimeout(t, 20*time.Second), meta, hosts, spec)
	if err != nil || len(done) != 2500 {
		t.Fatalf("done %d, err %v", len(done), err)
	}
	for i, h := range done {
		if h != hosts[i] {
			t.Fatalf("done[%d] = %v, want %v: the hosts done are in the order given", i, h, hosts[i])
		}
	}
	if n := g.seen(); n != 3 {
		t.Fatalf("%d register_proc_info calls in flight at most, want the 3 chunks together", n)
	}
	if n := len(sim.GSE().Processes()); n != 2500 {
		t.Fatalf("%d processes registered, want 2500", n)
	}
}

// Once a chunk ends with hosts whose outcome is unknown, no further chunk is
// sent: its hosts are NotActed, and nothing reaches them, while the chunks
// in flight finish. The gate holds the first four calls until all are in
// flight, so that none of them is still to begin when the first one fails.
func TestSyncChunkFailureStopsTheRest(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientBehind(t, simulator.Options{}, newGate("register_proc_info", 4).front, nil)
	sim.AddFault(simulator.Fault{API: "register_proc_info", Cut: true, Times: simulator.Forever})
	hosts := manyHosts(5000)
	done, err := c.Proc.RegisterProcInfo(ctxTimeout(t, 20*time.Second), meta, hosts, spec)
	var he *gse.HostsError
	if !errors.As(err, &he) || len(done) != 0 || len(he.Pending) != 4000 || len(he.NotActed) != 1000 || he.Total != 5000 {
		t.Fatalf("done %d, err %v", len(done), err)
	}
	registered := map[string]bool{}
	for _, p := range sim.GSE().Processes() {
		registered[p.IP] = true
	}
	for _, h := range he.NotActed {
		if registered[h.IP] {
			t.Fatalf("%v is NotActed but registered", h)
		}
	}
	if len(registered) != 4000 {
		t.Fatalf("%d hosts registered, want the 4000 of the chunks sent", len(registered))
	}
	if !strings.Contains(err.Error(), "was refused on 1000 of 5000 hosts, or not sent once a call of it had failed") {
		t.Fatalf("err = %v", err)
	}
}

// A chunk refused as a whole is the call's error as it would be alone: GSE
// acted on no host but those done. The gate holds the first four calls until
// all are in flight: the three beside the refused one finish, and the fifth
// chunk is sent only if one of them ended before the refusal did.
func TestSyncChunkRefused(t *testing.T) {
	t.Parallel()
	c, sim, _ := newClientBehind(t, simulator.Options{}, newGate("register_proc_info", 4).front, nil)
	sim.AddFault(simulator.Fault{API: "register_proc_info", Code: gse.CodeESBNoPermission, Message: "app has no permission to register_proc_info"})
	hosts := manyHosts(5000)
	done, err := c.Proc.RegisterProcInfo(ctxTimeout(t, 20*time.Second), meta, hosts, spec)
	var ae *gse.APIError
	if !errors.As(err, &ae) || errors.As(err, new(*gse.HostsError)) || (len(done) != 3000 && len(done) != 4000) {
		t.Fatalf("done %d, err %v", len(done), err)
	}
	if n := len(sim.GSE().Processes()); n != len(done) {
		t.Fatalf("%d processes registered, want the %d hosts done", n, len(done))
	}
}
