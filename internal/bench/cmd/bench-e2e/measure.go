package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// measure is one terraform command: wall time, its CPU split between
// Terraform itself and the provider processes it started, and their peak RSS
// (sampled from /proc while it runs).
type measure struct {
	wall    time.Duration
	cpu     time.Duration // provider user+system CPU
	coreCPU time.Duration // Terraform's own user+system CPU (core, HCL, protocol, rendering)
	peakRSS int64         // provider VmHWM, bytes
	calls   int           // HTTP requests the simulator answered
	simCPU  time.Duration // the simulator's CPU meanwhile: on this machine, not on a real installation's
}

// tf runs terraform in dir against sim and measures it.
func (b *bench) tf(dir string, sim *simulator, args ...string) measure {
	before, err := sim.calls()
	if err != nil {
		panic(err)
	}
	simBefore := processCPU(sim.cmd.Process.Pid)
	cmd := b.command(dir, sim, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	done := make(chan struct{})
	sampled := make(chan map[int]procSample)
	go sampleProviders(cmd.Process.Pid, done, sampled)
	err = cmd.Wait()
	m := measure{wall: time.Since(start)}
	close(done)
	for _, s := range <-sampled {
		m.cpu += s.cpu
		m.peakRSS = max(m.peakRSS, s.hwm)
	}
	// Linux reports a reaped process's CPU with that of the children it
	// reaped, which include the providers.
	if ps := cmd.ProcessState; ps != nil {
		m.coreCPU = max(0, ps.UserTime()+ps.SystemTime()-m.cpu)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "terraform %s in %s failed: %v\n%s\n", strings.Join(args, " "), dir, err, tail(out.String(), 3000))
		os.Exit(1)
	}
	after, err := sim.calls()
	if err != nil {
		panic(err)
	}
	m.calls = after - before
	m.simCPU = processCPU(sim.cmd.Process.Pid) - simBefore
	return m
}

// processCPU is pid's user+system CPU so far, 0 if it cannot be read.
func processCPU(pid int) time.Duration {
	_, cpu, _ := readStat(pid)
	return cpu
}

// readStat reads pid's parent and user+system CPU from /proc/pid/stat.
func readStat(pid int) (ppid int, cpu time.Duration, ok bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, false
	}
	// Fields after the parenthesised command: state ppid ... utime(14) stime(15).
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 13 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return ppid, time.Duration(utime+stime) * time.Second / clockTick, true
}

// command is terraform with args in dir, pointed at the provider and sim.
func (b *bench) command(dir string, sim *simulator, args ...string) *exec.Cmd {
	cmd := exec.Command(b.o.terraform, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+b.cliConfig, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		"BK_COMPONENT_API_URL="+sim.url, "BK_APP_CODE="+benchAppCode, "BK_APP_SECRET="+benchAppSecret, "BK_USERNAME=admin",
		"GSE_PACE_DIR="+filepath.Join(b.work, "pace")) // the runs of this benchmark remember the rate among themselves only
	cmd.Env = append(cmd.Env, b.o.providerEnv...)
	return cmd
}

func (b *bench) plan(dir string, sim *simulator) measure {
	return b.tf(dir, sim, "plan", "-input=false", "-lock=false", "-no-color", fmt.Sprintf("-parallelism=%d", b.o.parallelism))
}

func (b *bench) apply(dir string, sim *simulator) measure {
	return b.tf(dir, sim, "apply", "-input=false", "-auto-approve", "-no-color", fmt.Sprintf("-parallelism=%d", b.o.parallelism))
}

func (b *bench) destroy(dir string, sim *simulator) measure {
	return b.tf(dir, sim, "destroy", "-input=false", "-auto-approve", "-no-color", fmt.Sprintf("-parallelism=%d", b.o.parallelism))
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

type procSample struct {
	cpu time.Duration
	hwm int64
}

// clockTick is USER_HZ, 100 on Linux.
const clockTick = 100

// sampleProviders follows the provider processes whose parent is parent until
// done, keeping each one's last CPU time and peak RSS.
func sampleProviders(parent int, done <-chan struct{}, out chan<- map[int]procSample) {
	seen := map[int]procSample{}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if s, ok := readProc(pid, parent); ok {
				// An exiting process has no VmHWM any more: keep the peak seen.
				s.hwm = max(s.hwm, seen[pid].hwm)
				seen[pid] = s
			}
		}
		select {
		case <-done:
			out <- seen
			return
		case <-tick.C:
		}
	}
}

// readProc reads pid's CPU and VmHWM when it is a provider child of parent.
func readProc(pid, parent int) (procSample, bool) {
	comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	if err != nil || !strings.HasPrefix(string(comm), "terraform-provi") {
		return procSample{}, false
	}
	ppid, cpu, ok := readStat(pid)
	if !ok || ppid != parent {
		return procSample{}, false
	}
	s := procSample{cpu: cpu}
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return procSample{}, false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			s.hwm = kb * 1024
		}
	}
	return s, true
}
