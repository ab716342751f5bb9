package launch

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"time"
)

// profileEnv names a directory: when it is set, the provider writes a CPU
// profile of its whole life there, and heap profiles (pprof format, for
// `go tool pprof`). Terraform starts the provider itself, so an environment
// variable is the way in: TF_GSE_PPROF_DIR=/tmp/prof terraform plan.
//
//	cpu-PID.pprof        CPU, from start to exit
//	heap-PID.pprof       allocations and the live heap at exit
//	heap-peak-PID.pprof  the live heap when it was largest (sampled every 100 ms)
//	summary-PID.txt      that peak, GC cycles, bytes allocated and peak RSS
const profileEnv = "TF_GSE_PPROF_DIR"

// startProfiling starts the profiles profileEnv asks for and returns the
// function that writes them; it must run before the process exits.
func startProfiling() (stop func()) {
	dir := os.Getenv(profileEnv)
	if dir == "" {
		return func() {}
	}
	name := func(kind string) string { return filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", kind, os.Getpid())) }
	cpu, err := os.Create(name("cpu"))
	if err != nil {
		log.Printf("%s: %v", profileEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		log.Printf("%s: %v", profileEnv, err)
	}
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		peakHeap(name("heap-peak"), filepath.Join(dir, fmt.Sprintf("summary-%d.txt", os.Getpid())), done)
	}()
	return func() {
		pprof.StopCPUProfile()
		_ = cpu.Close()
		close(done)
		<-sampled
		writeHeap(name("heap"))
	}
}

// peakHeap writes a heap profile each time the live heap (as of the last
// GC) grows past its previous peak by an eighth, until done; then it writes
// the peak and the GC totals to a summary file.
func peakHeap(profile, summary string, done <-chan struct{}) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/allocs:bytes"}}
	var peak uint64
	for {
		select {
		case <-done:
			metrics.Read(samples)
			_ = os.WriteFile(summary, fmt.Appendf(nil, "peak live heap %d MiB, %d GC cycles, %d MiB allocated, %s\n",
				peak>>20, samples[1].Value.Uint64(), samples[2].Value.Uint64()>>20, peakRSS()), 0o644)
			return
		case <-tick.C:
		}
		metrics.Read(samples)
		if live := samples[0].Value.Uint64(); live > peak+peak/8 {
			peak = live
			writeHeap(profile)
		}
	}
}

// peakRSS is the VmHWM line of /proc/self/status (Linux), the peak resident set.
func peakRSS() string {
	status, _ := os.ReadFile("/proc/self/status")
	for line := range strings.Lines(string(status)) {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.Join(strings.Fields(line), " ")
		}
	}
	return "VmHWM unknown"
}

// writeHeap writes a heap profile at path.
func writeHeap(path string) {
	f, err := os.Create(path)
	if err != nil {
		log.Printf("%s: %v", profileEnv, err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		log.Printf("%s: %v", profileEnv, err)
	}
}
