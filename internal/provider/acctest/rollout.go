package acctest

import (
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// Fleet is n hosts 0:10.0.0.1 .. 0:10.0.0.n, listed in reverse so that the
// rollout's own order (by cloud id, then IP as an address) shows.
func Fleet(n int) []string {
	var out []string
	for i := n; i >= 1; i-- {
		out = append(out, fmt.Sprintf("0:10.0.0.%d", i))
	}
	return out
}

// IPRange is 10.0.0.from .. 10.0.0.to, in order.
func IPRange(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("10.0.0.%d", i))
	}
	return out
}

// OpBatches lists, task by task from the since-th on, the IPs of each task's
// targets with op_type op. It fails when a task carrying op was submitted
// while another task was still open: batches must never overlap.
func OpBatches(sim *simulator.Server, since, op int) ([][]string, error) {
	var out [][]string
	for _, task := range sim.Tasks()[since:] {
		var ips []string
		for _, tg := range task.Targets {
			if tg.Op == op {
				ips = append(ips, tg.IP)
			}
		}
		if len(ips) == 0 {
			continue
		}
		if task.Open != 0 {
			return nil, fmt.Errorf("task %s (%v) was submitted while %d other tasks were open", task.TaskID, ips, task.Open)
		}
		out = append(out, ips)
	}
	return out, nil
}

// ExpectBatches checks the op tasks since mark (read when the check runs, from *mark) against want.
func ExpectBatches(sim *simulator.Server, mark *int, op int, want ...[]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := OpBatches(sim, *mark, op)
		if err != nil {
			return err
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			return fmt.Errorf("op_type %d batches = %v, want %v", op, got, want)
		}
		return nil
	}
}

// MarkTasks returns a PreConfig that records how many tasks the simulator has seen.
func MarkTasks(sim *simulator.Server, mark *int) func() {
	return func() { *mark = len(sim.Tasks()) }
}
