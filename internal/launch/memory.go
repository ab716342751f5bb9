package launch

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The provider's memory is mostly garbage: a plan of 1000 resources allocates
// about 2.5 GiB of short-lived values (the framework's walks over every
// value), while what is live at once is 20-70 MiB, most at the moment many
// RPCs are in flight. With Go's default (GOGC=100: collect whenever the heap
// has doubled) a third of the provider's CPU went to the collector, and those
// moments doubled into a 180 MiB resident set (bench-e2e's refresh row).
//
// So the collector instead lets the heap grow up to memoryBudget and holds it
// there: fewer collections while little is live, and a peak bounded by the
// budget. When more is live, the limit follows the live heap with room to
// grow by half, so a large state never makes the collector run back to back.
// GOGC or GOMEMLIMIT in the environment turn this off.
const (
	memoryBudget = 80 << 20 // bytes of Go memory (heap, stacks, runtime) while little is live
	gcPercent    = 400      // the heap may grow by 4× what is live, within the limit
)

// tuneGC sets the collector as above, unless the user set it.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(memoryBudget)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	afterEachGC(func() {
		metrics.Read(live)
		debug.SetMemoryLimit(memoryLimit(live[0].Value.Uint64()))
	})
}

// memoryLimit is the limit for live bytes of heap: the budget, or room for
// the live heap to grow by half when that is more. Not to double, as
// GOGC=100 would: the live heap measured at a collection includes what was
// allocated while it marked (long on a busy machine), and a limit following
// twice that let a plan of 1000 resources reach a 146 MiB resident set.
func memoryLimit(live uint64) int64 {
	return max(memoryBudget, int64(live+live/2)+memoryBudget/8)
}

// gcSentinel is garbage whose finalizer runs after the collection that found
// it; it holds a pointer so that it is never in a tiny allocation block.
type gcSentinel struct{ _ *byte }

// afterEachGC calls f in the finalizer goroutine after every collection.
func afterEachGC(f func()) {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		f()
		afterEachGC(f)
	})
}
