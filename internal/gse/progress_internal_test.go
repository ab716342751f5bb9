package gse

import (
	"context"
	"testing"
	"time"
)

// pollTask tells of each host once, in the poll where its result turns final.
func TestPollTaskReportsEachHostAsItSettles(t *testing.T) {
	polls := []map[string]HostResult{
		{"a": {ErrorCode: HostPending}},                        // b left out for now
		{"a": {ErrorCode: HostPending}, "b": {ErrorCode: 117}}, // b fails first
		{"a": {ErrorCode: HostOK}, "b": {ErrorCode: 117}},
	}
	n := 0
	var order []string
	var codes []int
	final, err := pollTask(context.Background(), newBackoff(time.Microsecond, time.Microsecond), func(context.Context) (map[string]HostResult, error) {
		n++
		return polls[n-1], nil
	}, []string{"a", "b"}, func(i int, r HostResult) {
		order = append(order, []string{"a", "b"}[i])
		codes = append(codes, r.ErrorCode)
		if len(order) == 1 && n != 2 {
			t.Errorf("b reported at poll %d, want 2 (as it settles)", n)
		}
	})
	if err != nil || len(final) != 2 {
		t.Fatalf("final %v, err %v", final, err)
	}
	if len(order) != 2 || order[0] != "b" || order[1] != "a" || codes[0] != 117 || codes[1] != HostOK {
		t.Fatalf("reported %v with codes %v, want b (117) then a (0)", order, codes)
	}
}
