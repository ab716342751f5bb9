package main

import (
	"fmt"
	"os"
)

// fleetWorkspaceRows: o.fleetWorkspaces terraform runs at once, each one
// gse_managed_process on every host of the CMDB business (gse_cmdb_hosts),
// against one installation that allows the app o.fleetQuota requests per
// second, tasks of o.createLatency; beside the same runs holding the hosts in
// terraform_data (which read CMDB under the same limit). Runs alternate which
// arm goes first.
func (bn *bench) fleetWorkspaceRows() []row {
	n, quota, all := bn.o.fleetWorkspaces, bn.o.fleetQuota, bn.o.fleet[len(bn.o.fleet)-1]
	fmt.Fprintf(os.Stderr, "fleet workspaces: %d runs at once of one resource on %d CMDB hosts, quota %g requests/s, task latency %v\n", n, all, quota, bn.o.createLatency)
	sim := bn.quotaSimulator(quota)
	defer sim.stop()
	data, gse := make([]string, n), make([]string, n)
	for i := range n {
		data[i] = bn.dir(fmt.Sprintf("fws-data%d", i), fleetConfig(all, all, false, true, ""))
		gse[i] = bn.dir(fmt.Sprintf("fws-gse%d", i), fleetConfig(all, all, true, true, fmt.Sprintf("ws%d", i)))
	}
	flags := []string{"-input=false", "-no-color", "-auto-approve", fmt.Sprintf("-parallelism=%d", bn.o.parallelism)}
	type arm struct{ apply, destroy []phase }
	var a, b arm
	run := func(dirs []string, x *arm) {
		x.apply = append(x.apply, bn.allAtOnce(sim, dirs, append([]string{"apply"}, flags...)))
		x.destroy = append(x.destroy, bn.allAtOnce(sim, dirs, append([]string{"destroy"}, flags...)))
	}
	for i := range bn.o.runs {
		if i%2 == 0 {
			run(data, &a)
			run(gse, &b)
		} else {
			run(gse, &b)
			run(data, &a)
		}
	}
	wall := func(p phase) float64 { return p.wall.Seconds() }
	ratios := make([]float64, len(a.apply))
	ok := 0
	for i := range a.apply {
		ratios[i] = b.apply[i].wall.Seconds() / a.apply[i].wall.Seconds()
		ok += b.apply[i].ok + b.destroy[i].ok
	}
	setup := fmt.Sprintf("%d runs at once, each one `gse_managed_process` on the %d hosts of `gse_cmdb_hosts` (`running = true`), %g requests/s shared, L = %v",
		n, all, quota, bn.o.createLatency)
	return []row{
		{work: "fleet workspaces: apply / the same runs with `terraform_data` holding the hosts (" + setup + ")",
			value:  fmt.Sprintf("%.2f×", median(ratios, func(x float64) float64 { return x })),
			detail: fmt.Sprintf("gse %.1f s / terraform_data %.1f s; %d of %d gse applies and destroys succeeded", median(b.apply, wall), median(a.apply, wall), ok, 2*n*len(b.apply))},
		{work: "fleet workspaces: destroy / apply of `gse_managed_process`",
			value:  fmt.Sprintf("%.2f×", median(b.destroy, wall)/median(b.apply, wall)),
			detail: fmt.Sprintf("destroy %.1f s (terraform_data %.1f s)", median(b.destroy, wall), median(a.destroy, wall))},
	}
}
