package launch

import "testing"

// The memory limit is the budget while little is live, and leaves a large
// live heap room to grow by half, so the collector never runs back to back.
func TestMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int64
	}{{0, memoryBudget}, {20 << 20, memoryBudget}, {300 << 20, 460 << 20}} {
		if got := memoryLimit(tc.live); got != tc.want {
			t.Errorf("live %d MiB: limit %d MiB, want %d MiB", tc.live>>20, got>>20, tc.want>>20)
		}
	}
}
