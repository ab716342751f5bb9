package health

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// BindInfo is one row of a CMDB process's bind_info as
// gse_cmdb_processes.instances gives it: Protocol by name ("TCP", "UDP",
// "TCP6", "UDP6"), Port a port, a range or a list of them ("80",
// "8000-8002", "80,8000-8002").
type BindInfo struct {
	Enable   bool
	IP       string
	Port     string
	Protocol string
}

// Ports are the TCP ports the enabled TCP and TCP6 rows of rows bind,
// ascending, each once: every port of a range, every item of a list (CMDB's
// port format: bk-cmdb src/common/metadata/process.go ProcessPortFormat,
// PropertyPortValue.Validate). A disabled row, or one of another protocol,
// gives none; a port that is not in that format is an error naming it.
func Ports(rows []BindInfo) ([]int, error) {
	var out []int
	for i, r := range rows {
		if !r.Enable || (r.Protocol != "TCP" && r.Protocol != "TCP6") {
			continue
		}
		ports, err := portList(r.Port)
		if err != nil {
			return nil, fmt.Errorf("bind_info row %d: port %q %w", i+1, r.Port, err)
		}
		out = append(out, ports...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// portList is every port of a CMDB port value.
func portList(v string) ([]int, error) {
	var out []int
	for item := range strings.SplitSeq(v, ",") {
		lo, hi, isRange := strings.Cut(item, "-")
		if !isRange {
			hi = lo
		}
		a, errA := port(lo)
		b, errB := port(hi)
		switch {
		case errA != nil || errB != nil:
			return nil, fmt.Errorf("is not a port (1-65535), a range of them (8000-8002) or a comma-separated list of both")
		case a > b:
			return nil, fmt.Errorf("has the range %s, which ends before it starts", item)
		}
		for p := a; p <= b; p++ {
			out = append(out, p)
		}
	}
	return out, nil
}

// port is a decimal port, 1 to 65535, without sign or leading zero.
func port(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("not a port")
	}
	return n, nil
}
