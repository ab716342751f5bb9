package gse_test

import (
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// Without operate_proc_multi, batched operations are sent one by one with
// operate_proc_v2: the first batch after one refusal, every later one at once,
// and the log says so once.
func TestWithoutOperateProcMulti(t *testing.T) {
	t.Parallel()
	c, sim, log := newClientWith(t, simulator.Options{}, batched)
	sim.RemoveAPIs("operate_proc_multi")
	all := callers(5)
	for round, cs := range [][]caller{all[:3], all[3:]} {
		for i, r := range operateAll(t, c, cs, gse.OpStart, sameSpec, nil) {
			if r.err != nil {
				t.Fatalf("round %d, caller %d: %v", round, i, r.err)
			}
		}
	}
	if n := sim.Calls("operate_proc_multi"); n != 1 {
		t.Errorf("operate_proc_multi sent %d times, want once", n)
	}
	if n := sim.Calls("operate_proc_v2"); n != 5 {
		t.Errorf("operate_proc_v2 sent %d times, want 3 + 2", n)
	}
	warned := 0
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, l := range log.lines {
		if strings.Contains(l, "GSE has no operate_proc_multi") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("the fallback was logged %d times, want once", warned)
	}
	for _, p := range sim.Processes() {
		if !p.Running {
			t.Errorf("%s/%s on %s is not running", p.Namespace, p.Name, p.IP)
		}
	}
}
