package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Many workspaces, one BlueKing: o.workspaces terraform runs at once, each
// with its own provider process, against one installation that allows the
// app o.quota requests per second. Each phase (apply, plan, destroy) starts
// every run together and ends when the last one does.

// phase is one command run in every workspace at once.
type phase struct {
	ok              int // runs that exited 0
	wall            time.Duration
	served, limited int           // requests the installation served and refused during the phase
	failure         string        // the end of the first failed run's output
	simCPU          time.Duration // the simulator's CPU during the phase, on the cores the runs share
}

func (bn *bench) workspaceRows() []row {
	n, per, quota := bn.o.workspaces, bn.o.workspaceResources, bn.o.quota
	fmt.Fprintf(os.Stderr, "workspaces: %d runs of %d resources at once, quota %g requests/s, task latency %v\n", n, per, quota, bn.o.createLatency)
	sim := bn.quotaSimulator(quota)
	defer sim.stop()
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = bn.dir(fmt.Sprintf("ws%d", i), gseConfig(workload{resources: per, hosts: 1, running: true, namespace: fmt.Sprintf("ws%d", i)}))
	}
	flags := []string{"-input=false", "-no-color", fmt.Sprintf("-parallelism=%d", bn.o.parallelism)}
	apply := bn.allAtOnce(sim, dirs, append([]string{"apply", "-auto-approve"}, flags...))
	// -detailed-exitcode: 0 is an empty plan, 2 a plan with changes.
	plan := bn.allAtOnce(sim, dirs, append([]string{"plan", "-detailed-exitcode", "-lock=false"}, flags...))
	destroy := bn.allAtOnce(sim, dirs, append([]string{"destroy", "-auto-approve"}, flags...))
	var left []any
	if err := sim.get("/_sim/processes", &left); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	served, limited, wall := 0, 0, time.Duration(0)
	for _, p := range []phase{apply, plan, destroy} {
		served, limited, wall = served+p.served, limited+p.limited, wall+p.wall
		if p.failure != "" {
			fmt.Fprintf(os.Stderr, "a failed run ended with:\n%s\n", p.failure)
		}
	}
	setup := fmt.Sprintf("%d × %d `gse_managed_process` (1 host, `running = true`), %g requests/s, L = %v", n, per, quota, bn.o.createLatency)
	return []row{
		{work: "workspaces: applies that succeed (" + setup + ")", value: fmt.Sprintf("%d of %d", apply.ok, n), detail: fmt.Sprintf("%.1f s", apply.wall.Seconds())},
		{work: "workspaces: plans after them that are empty", value: fmt.Sprintf("%d of %d", plan.ok, n), detail: fmt.Sprintf("%.1f s", plan.wall.Seconds())},
		{work: "workspaces: destroys that succeed; processes left registered", value: fmt.Sprintf("%d of %d; %d left", destroy.ok, n, len(left)), detail: fmt.Sprintf("%.1f s", destroy.wall.Seconds())},
		{work: "workspaces: requests answered \"rate limited\"", value: fmt.Sprintf("%.0f %%", 100*float64(limited)/float64(max(1, served+limited))),
			detail: fmt.Sprintf("%d of %d", limited, served+limited)},
		{work: "workspaces: efficiency, requests served / the limit / wall time", value: fmt.Sprintf("%.2f", float64(served)/quota/wall.Seconds()),
			detail: fmt.Sprintf("%d served in %.1f s (apply, plan and destroy)", served, wall.Seconds())},
	}
}

// quotaSimulator starts a simulator of tasks of o.createLatency that allows
// the app quota requests per second, or exits.
func (bn *bench) quotaSimulator(quota float64) *simulator {
	sim, err := bn.startSimulator(bn.o.createLatency, "-quota", fmt.Sprint(quota))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return sim
}

// allAtOnce runs terraform args in every dir at once and waits for them all.
func (bn *bench) allAtOnce(sim *simulator, dirs []string, args []string) phase {
	total0, limited0, err := sim.counts()
	if err != nil {
		panic(err)
	}
	var p phase
	simBefore := processCPU(sim.cmd.Process.Pid)
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for _, d := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := bn.command(d, sim, args...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			mu.Lock()
			defer mu.Unlock()
			var exit *exec.ExitError
			planned := errors.As(err, &exit) && args[0] == "plan" && exit.ExitCode() == 2 // a plan with changes, not a failure
			switch {
			case err == nil:
				p.ok++
			case p.failure == "" && !planned:
				p.failure = tail(out.String(), 3000)
			}
		}()
	}
	wg.Wait()
	p.wall = time.Since(start)
	p.simCPU = processCPU(sim.cmd.Process.Pid) - simBefore
	total, limited, err := sim.counts()
	if err != nil {
		panic(err)
	}
	p.limited = limited - limited0
	p.served = total - total0 - p.limited
	fmt.Fprintf(os.Stderr, "  %s: %d of %d succeeded in %v; %d requests served, %d refused; simulator CPU %v\n", strings.Join(args[:1], " "), p.ok, len(dirs),
		p.wall.Round(time.Millisecond), p.served, p.limited, p.simCPU)
	return p
}
