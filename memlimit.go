package main

import (
	"os"
	"runtime/debug"
)

// softMemoryLimit is the Go runtime's soft memory limit for the provider
// process. A refresh of 1000 resources keeps little alive between calls
// (a few MiB of schema, client and state), but with the default GOGC=100 the
// heap grew to over 150 MiB of garbage between collections, once per
// provider process Terraform starts. The soft limit makes the collector run
// earlier when the heap nears it; it never fails an allocation, and above it
// the runtime caps its GC work at half the CPU.
const softMemoryLimit = 48 << 20

// limitMemory sets softMemoryLimit unless the user set GOMEMLIMIT, which the
// runtime already honours (GOMEMLIMIT=off removes the limit).
func limitMemory() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(softMemoryLimit)
	}
}
