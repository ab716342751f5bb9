package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
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
		peakHeap(name("heap-peak"), done)
	}()
	return func() {
		pprof.StopCPUProfile()
		_ = cpu.Close()
		close(done)
		<-sampled
		writeHeap(name("heap"))
	}
}

// peakHeap writes a heap profile each time the live heap grows past its
// previous peak by an eighth, until done.
func peakHeap(path string, done <-chan struct{}) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var peak uint64
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > peak+peak/8 {
			peak = ms.HeapAlloc
			writeHeap(path)
		}
	}
}

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
