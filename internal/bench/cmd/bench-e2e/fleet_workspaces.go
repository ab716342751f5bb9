package main

import (
	"fmt"
	"os"
)

// fleetWorkspaceRows: o.fleetWorkspaces terraform runs at once, each one
// gse_managed_process on every host of the CMDB business (gse_cmdb_hosts),
// against one installation that allows the app o.fleetQuota requests per
// second, tasks of o.createLatency; beside the same runs holding the hosts in
// terraform_data (which read CMDB under the same limit), and the same runs of
// the provider without API work for its resources (its data source reads
// CMDB as the others do), and with -baseline-src the baseline provider's.
// Runs rotate which arm goes first.
func (bn *bench) fleetWorkspaceRows() []row {
	n, quota, all := bn.o.fleetWorkspaces, bn.o.fleetQuota, bn.o.fleet[len(bn.o.fleet)-1]
	fmt.Fprintf(os.Stderr, "fleet workspaces: %d runs at once of one resource on %d CMDB hosts, quota %g requests/s, task latency %v\n", n, all, quota, bn.o.createLatency)
	sim := bn.quotaSimulator(quota)
	defer sim.stop()
	var data, gse, floor, base fleetPhases
	arms := []fleetArm{{bn.fleetWorkspaceDirs("fws-data", ""), bn.cliConfig, &data}, {bn.fleetWorkspaceDirs("fws-gse", "ws"), bn.cliConfig, &gse}}
	if bn.noAPIConfig != "" {
		arms = append(arms, fleetArm{bn.fleetWorkspaceDirs("fws-noapi", "ws"), bn.noAPIConfig, &floor})
	}
	if bn.baseConfig != "" {
		arms = append(arms, fleetArm{bn.fleetWorkspaceDirs("fws-base", "base"), bn.baseConfig, &base})
	}
	flags := []string{"-input=false", "-no-color", "-auto-approve", fmt.Sprintf("-parallelism=%d", bn.o.parallelism)}
	for i := range bn.o.runs {
		for k := range arms {
			a := arms[(i+k)%len(arms)]
			at := func(cmd string) phase {
				return under(bn, a.cliConfig, func() phase { return bn.allAtOnce(sim, a.dirs, append([]string{cmd}, flags...)) })
			}
			a.got.apply = append(a.got.apply, at("apply"))
			a.got.destroy = append(a.got.destroy, at("destroy"))
		}
	}
	return bn.fleetWorkspaceReport(data, gse, floor, base)
}

// fleetPhases are what the runs of one arm took, apply and destroy, run by run.
type fleetPhases struct{ apply, destroy []phase }

// fleetArm is one arm of the fleet workspaces row: its runs' directories,
// the CLI config that picks its provider, and where its phases go.
type fleetArm struct {
	dirs      []string
	cliConfig string
	got       *fleetPhases
}

// fleetWorkspaceDirs are the runs of one arm; ns, when set, names their
// namespaces (ns0, ns1, ...) and makes them gse_managed_process runs.
func (bn *bench) fleetWorkspaceDirs(prefix, ns string) []string {
	all := bn.o.fleet[len(bn.o.fleet)-1]
	out := make([]string, bn.o.fleetWorkspaces)
	for i := range out {
		var each string
		if ns != "" {
			each = fmt.Sprintf("%s%d", ns, i)
		}
		out[i] = bn.dir(fmt.Sprintf("%s%d", prefix, i), fleetConfig(all, all, ns != "", true, each))
	}
	return out
}

// fleetWorkspaceReport makes the rows of the fleet workspaces runs: gse
// against terraform_data, its destroy against its apply, and the floor's and
// the baseline's arms when they ran.
func (bn *bench) fleetWorkspaceReport(data, gse, floor, base fleetPhases) []row {
	n, quota, all := bn.o.fleetWorkspaces, bn.o.fleetQuota, bn.o.fleet[len(bn.o.fleet)-1]
	wall := func(p phase) float64 { return p.wall.Seconds() }
	simCPU := func(p phase) float64 { return p.simCPU.Seconds() }
	ratio := func(b, a []phase) float64 {
		r := make([]float64, len(a))
		for i := range a {
			r[i] = b[i].wall.Seconds() / a[i].wall.Seconds()
		}
		return middle(r)
	}
	ok := 0
	for i := range gse.apply {
		ok += gse.apply[i].ok + gse.destroy[i].ok
	}
	setup := fmt.Sprintf("%d runs at once, each one `gse_managed_process` on the %d hosts of `gse_cmdb_hosts` (`running = true`), %g requests/s shared, L = %v",
		n, all, quota, bn.o.createLatency)
	rows := []row{
		{work: "fleet workspaces: apply / the same runs with `terraform_data` holding the hosts (" + setup + ")",
			value: fmt.Sprintf("%.2f×", ratio(gse.apply, data.apply)),
			detail: fmt.Sprintf("gse %.1f s / terraform_data %.1f s; %d of %d gse applies and destroys succeeded; simulator CPU %.1f s / %.1f s",
				median(gse.apply, wall), median(data.apply, wall), ok, 2*n*len(gse.apply), median(gse.apply, simCPU), median(data.apply, simCPU))},
		{work: "fleet workspaces: destroy / apply of `gse_managed_process`",
			value:  fmt.Sprintf("%.2f×", median(gse.destroy, wall)/median(gse.apply, wall)),
			detail: fmt.Sprintf("destroy %.1f s (terraform_data %.1f s)", median(gse.destroy, wall), median(data.destroy, wall))},
	}
	// beside is the row of another provider's arm against terraform_data.
	beside := func(work string, p fleetPhases) row {
		return row{work: work + ": fleet workspaces apply / `terraform_data`", value: fmt.Sprintf("%.2f×", ratio(p.apply, data.apply)),
			detail: fmt.Sprintf("apply %.1f s, destroy %.1f s (destroy / apply %.2f×); simulator CPU %.1f s", median(p.apply, wall), median(p.destroy, wall),
				median(p.destroy, wall)/median(p.apply, wall), median(p.apply, simCPU))}
	}
	if len(floor.apply) > 0 {
		rows = append(rows, beside("floor: without API work for the resource", floor))
	}
	if len(base.apply) > 0 {
		rows = append(rows, beside(fmt.Sprintf("baseline (%s)", bn.o.baselineSrc), base))
	}
	return rows
}
