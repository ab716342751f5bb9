package provider

import (
	"fmt"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// statusName names GSE's process states (flag and status).
func statusName(s int) string {
	switch s {
	case gse.StateUnregistered:
		return "unregistered"
	case gse.StateRunning:
		return "running"
	case gse.StateStopped:
		return "stopped"
	}
	return fmt.Sprintf("unknown (%d)", s)
}
