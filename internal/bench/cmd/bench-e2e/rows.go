package main

import (
	"fmt"
	"io"
	"os"
	"slices"
)

// row is one line of the table.
type row struct {
	work, value, detail string
}

// pair is one row's A/B measurements: A is terraform_data, B the provider.
type pair struct{ a, b []measure }

// abRuns runs a (terraform_data) and b (the provider) o.runs times, rotating
// which goes first (armSet.run).
func (bn *bench) abRuns(a, b func() measure) pair {
	var arms armSet[func() measure]
	arms.add(armData, a)
	arms.add(armGSE, b)
	return arms.run(bn.o.runs, func(f func() measure) measure { return f() })[0].pair(armData, armGSE)
}

// applyArms applies, then destroys, terraform_data in dataCfg, the provider
// in gseCfg and, when built, the provider without API work in gseCfg, all
// against sim, in the same runs; dirs are named from prefix.
func (bn *bench) applyArms(prefix, dataCfg, gseCfg string, sim *simulator) armMeasures {
	var arms armSet[func() measure]
	arms.add(armData, bn.applyDestroy(bn.dir(prefix+"-data", dataCfg), sim))
	arms.add(armGSE, bn.applyDestroy(bn.dir(prefix+"-gse", gseCfg), sim))
	if bn.noAPIConfig != "" {
		floor := bn.applyDestroy(bn.dir(prefix+"-noapi", gseCfg), sim)
		arms.add(armNoAPI, func() measure { return bn.noAPI(floor) })
	}
	return arms.run(bn.o.runs, func(f func() measure) measure { return f() })[0]
}

// floorRow is the row of the provider without API work against
// terraform_data in m, when m has it.
func floorRow(what string, m armMeasures) []row {
	if len(m[armNoAPI]) == 0 {
		return nil
	}
	return []row{ratioRow(fmt.Sprintf("floor: the same without API work, %s / `terraform_data`", what), m.pair(armData, armNoAPI))}
}

// applyDestroy applies dir against sim and destroys it again, measuring the apply.
func (bn *bench) applyDestroy(dir string, sim *simulator) func() measure {
	return func() measure { m := bn.apply(dir, sim); bn.destroy(dir, sim); return m }
}

func median[T any](xs []T, key func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = key(x)
	}
	slices.Sort(v)
	if len(v) == 0 {
		return 0
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func secs(m measure) float64 { return m.wall.Seconds() }

// middle is the median of xs.
func middle(xs []float64) float64 { return median(xs, func(x float64) float64 { return x }) }

// coreSecs is the CPU Terraform itself used, providers excluded.
func coreSecs(m measure) float64 { return m.coreCPU.Seconds() }

// providerSecs is the CPU of the provider processes Terraform started (in a
// terraform_data arm, this provider's data sources, if any).
func providerSecs(m measure) float64 { return m.cpu.Seconds() }

// simSecs is the simulator's CPU during the command.
func simSecs(m measure) float64 { return m.simCPU.Seconds() }

// ratioRow reports the median of per-run ratios B/A, with both medians, the
// median CPU of Terraform itself, of the providers and of the simulator in B
// and A, and the largest peak RSS of a provider in B.
func ratioRow(work string, p pair) row {
	ratios := make([]float64, len(p.a))
	for i := range p.a {
		ratios[i] = p.b[i].wall.Seconds() / p.a[i].wall.Seconds()
	}
	var rss int64
	for _, m := range p.b {
		rss = max(rss, m.peakRSS)
	}
	return row{work: work, value: fmt.Sprintf("%.2f×", middle(ratios)),
		detail: fmt.Sprintf("%.2f s / %.2f s; Terraform CPU %.2f s / %.2f s; provider CPU %.2f s / %.2f s, peak RSS %d MiB; simulator CPU %.2f s / %.2f s",
			median(p.b, secs), median(p.a, secs), median(p.b, coreSecs), median(p.a, coreSecs),
			median(p.b, providerSecs), median(p.a, providerSecs), rss>>20,
			median(p.b, simSecs), median(p.a, simSecs))}
}

func (bn *bench) planRow() row {
	w := workload{resources: 1, hosts: bn.o.hosts}
	fmt.Fprintf(os.Stderr, "plan: one resource, %d hosts\n", w.hosts)
	a, b := bn.dir("plan-data", dataConfig(w)), bn.dir("plan-gse", gseConfig(w))
	p := bn.abRuns(func() measure { return bn.plan(a, bn.fast) }, func() measure { return bn.plan(b, bn.fast) })
	return ratioRow(fmt.Sprintf("plan one `gse_managed_process` with %d hosts in a literal list / `terraform_data` with them (Terraform core's cost: it converts the tuple to a list comparing every pair of elements)", w.hosts), p)
}

// applyRows apply one resource on o.hosts literal hosts, and on a tenth of
// them, beside terraform_data holding them and the provider without API work;
// the last row says how the cost per host grows from the smaller size to the
// larger (1.00× is linear).
func (bn *bench) applyRows() []row {
	var rows []row
	var runs []armMeasures
	sizes := []int{bn.o.hosts / 10, bn.o.hosts}
	for _, n := range sizes {
		w := workload{resources: 1, hosts: n, running: true}
		fmt.Fprintf(os.Stderr, "apply: one resource, %d hosts\n", w.hosts)
		m := bn.applyArms("apply", dataConfig(w), gseConfig(w), bn.fast)
		runs = append(runs, m)
		rows = append(rows, ratioRow(fmt.Sprintf("apply one resource (%d hosts in a literal list, `running = true`, task latency %v) / `terraform_data` holding them (Terraform core's cost as above)", w.hosts, bn.o.taskLatency), m.pair(armData, armGSE)))
		rows = append(rows, floorRow(fmt.Sprintf("%d hosts", w.hosts), m)...)
	}
	perHost := func(m armMeasures, a arm, n int) float64 { return median(m[a], secs) / float64(n) }
	growth := func(a arm) float64 { return perHost(runs[1], a, sizes[1]) / perHost(runs[0], a, sizes[0]) }
	r := row{
		work:   fmt.Sprintf("apply growth: `gse_managed_process` seconds per host at %d hosts / at %d", sizes[1], sizes[0]),
		value:  fmt.Sprintf("%.2f×", growth(armGSE)),
		detail: fmt.Sprintf("`terraform_data`: %.2f×", growth(armData)),
	}
	if len(runs[0][armNoAPI]) > 0 {
		r.detail += fmt.Sprintf("; without API work: %.2f×", growth(armNoAPI))
	}
	return append(rows, r)
}

func (bn *bench) manyRows() []row {
	w := workload{resources: bn.o.resources, hosts: 1, running: true}
	fmt.Fprintf(os.Stderr, "many: %d one-host resources\n", w.resources)
	a, b, bare := bn.dir("many-data", dataConfig(w)), bn.dir("many-gse", gseConfig(w)), bn.dir("many-bare", bareConfig(w.resources))
	type step func(dir string, sim *simulator) measure
	var arms armSet[func(step) measure]
	arms.add(armData, func(s step) measure { return s(a, bn.fast) })
	arms.add(armGSE, func(s step) measure { return s(b, bn.fast) })
	arms.add(armBare, func(s step) measure { return s(bare, bn.fast) })
	if bn.noAPIConfig != "" {
		c := bn.dir("many-noapi", gseConfig(w))
		arms.add(armNoAPI, func(s step) measure { return bn.noAPI(func() measure { return s(c, bn.fast) }) })
	}
	if bn.baseConfig != "" {
		wb := w
		wb.namespace = "baseline" // beside the other arm's processes in the one simulator
		c := bn.dir("many-base", gseConfig(wb))
		arms.add(armBaseline, func(s step) measure { return bn.baseline(func() measure { return s(c, bn.fast) }) })
	}
	// Each run applies then destroys them all, the first arm rotating.
	m := arms.run(bn.o.runs, func(f func(step) measure) measure { return f(bn.apply) }, func(f func(step) measure) measure { return f(bn.destroy) })
	applies, destroys := m[0], m[1]
	rows := []row{
		ratioRow(fmt.Sprintf("apply %d resources (1 host, `running = true`) / bare `terraform_data` (`count = %d`)", w.resources, w.resources), applies.pair(armBare, armGSE)),
		ratioRow(fmt.Sprintf("destroy them / destroy bare `terraform_data` (`count = %d`)", w.resources), destroys.pair(armBare, armGSE)),
		ratioRow(fmt.Sprintf("apply %d resources / %d `terraform_data` holding the same values", w.resources, w.resources), applies.pair(armData, armGSE)),
		ratioRow(fmt.Sprintf("destroy them / destroy %d `terraform_data` holding the same values", w.resources), destroys.pair(armData, armGSE)),
	}
	if arms.has(armNoAPI) {
		rows = append(rows,
			ratioRow(fmt.Sprintf("floor: apply %d without API work / bare `terraform_data`", w.resources), applies.pair(armBare, armNoAPI)),
			ratioRow("floor: destroy them without API work / bare `terraform_data`", destroys.pair(armBare, armNoAPI)))
	}
	if arms.has(armBaseline) {
		rows = append(rows,
			ratioRow(fmt.Sprintf("baseline (%s): apply %d / bare `terraform_data`", bn.o.baselineSrc, w.resources), applies.pair(armBare, armBaseline)),
			ratioRow(fmt.Sprintf("baseline (%s): destroy them / bare `terraform_data`", bn.o.baselineSrc), destroys.pair(armBare, armBaseline)))
	}
	return rows
}

// refreshRow plans (refreshes) resources that exist; the provider without
// API work, and with -baseline-src the baseline provider, refresh the same
// state in the same runs.
func (bn *bench) refreshRow() []row {
	w := workload{resources: bn.o.refreshResources, hosts: 1, running: true}
	fmt.Fprintf(os.Stderr, "refresh: %d resources\n", w.resources)
	a, b, bare := bn.dir("refresh-data", dataConfig(w)), bn.dir("refresh-gse", gseConfig(w)), bn.dir("refresh-bare", bareConfig(w.resources))
	for _, d := range []string{a, b, bare} {
		bn.apply(d, bn.fast)
	}
	var arms armSet[func() measure]
	arms.add(armData, func() measure { return bn.plan(a, bn.fast) })
	arms.add(armGSE, func() measure { return bn.plan(b, bn.fast) })
	arms.add(armBare, func() measure { return bn.plan(bare, bn.fast) })
	if bn.noAPIConfig != "" {
		arms.add(armNoAPI, func() measure { return bn.noAPI(func() measure { return bn.plan(b, bn.fast) }) })
	}
	if bn.baseConfig != "" {
		arms.add(armBaseline, func() measure { return bn.baseline(func() measure { return bn.plan(b, bn.fast) }) })
	}
	plans := arms.run(bn.o.runs, func(f func() measure) measure { return f() })[0]
	for _, d := range []string{a, b, bare} {
		bn.destroy(d, bn.fast)
	}
	rows := []row{
		ratioRow(fmt.Sprintf("plan (refresh) %d resources / bare `terraform_data` (`count = %d`)", w.resources, w.resources), plans.pair(armBare, armGSE)),
		ratioRow(fmt.Sprintf("plan (refresh) %d resources / %d `terraform_data` holding the same values", w.resources, w.resources), plans.pair(armData, armGSE)),
	}
	if arms.has(armNoAPI) {
		rows = append(rows, ratioRow(fmt.Sprintf("floor: plan (refresh) %d without API work / bare `terraform_data`", w.resources), plans.pair(armBare, armNoAPI)))
	}
	if arms.has(armBaseline) {
		rows = append(rows, ratioRow(fmt.Sprintf("baseline (%s): plan (refresh) %d / bare `terraform_data`", bn.o.baselineSrc, w.resources), plans.pair(armBare, armBaseline)))
	}
	return rows
}

// createRows: (apply − terraform_data apply) / L for one create at latency L,
// and the same for the provider without API work: what Terraform and the
// framework add to one create (the provider's launches, its RPCs).
func (bn *bench) createRows() []row {
	L := bn.o.createLatency
	fmt.Fprintf(os.Stderr, "create: one resource at task latency %v\n", L)
	over := func(m armMeasures, a arm) []float64 {
		out := make([]float64, len(m[a]))
		for i := range out {
			out[i] = (m[a][i].wall - m[armData][i].wall).Seconds() / L.Seconds()
		}
		return out
	}
	var out []row
	for _, running := range []bool{true, false} {
		w := workload{resources: 1, hosts: 1, running: running}
		m := bn.applyArms("create", dataConfig(workload{resources: 1, hosts: 1}), gseConfig(w), bn.slow)
		name := "`running = true`"
		if !running {
			name = "`running` unset"
		}
		r := row{work: fmt.Sprintf("one create, %s: (apply − `terraform_data` apply) / L, L = %v", name, L),
			value:  fmt.Sprintf("%.2f", middle(over(m, armGSE))),
			detail: fmt.Sprintf("gse %.2f s / terraform_data %.2f s", median(m[armGSE], secs), median(m[armData], secs))}
		if len(m[armNoAPI]) > 0 {
			r.detail += fmt.Sprintf("; without API work %.2f s: %.2f of L is Terraform's and the framework's",
				median(m[armNoAPI], secs), middle(over(m, armNoAPI)))
		}
		out = append(out, r)
	}
	return out
}

// requestRows count HTTP requests (GET /_sim/calls) at latency L.
func (bn *bench) requestRows() []row {
	L := bn.o.createLatency
	fmt.Fprintf(os.Stderr, "requests at task latency %v\n", L)
	one := bn.dir("requests-one", gseConfig(workload{resources: 1, hosts: 1, running: true}))
	c, d := bn.apply(one, bn.slow), bn.destroy(one, bn.slow)
	many := bn.dir("requests-many", gseConfig(workload{resources: bn.o.resources, hosts: 1, running: true}))
	mc := bn.apply(many, bn.slow)
	md := bn.destroy(many, bn.slow)
	return []row{
		{work: fmt.Sprintf("HTTP requests per create / per destroy (L = %v, `running = true`)", L), value: fmt.Sprintf("%d / %d", c.calls, d.calls)},
		{work: fmt.Sprintf("HTTP requests for %d creates applied together (L = %v)", bn.o.resources, L), value: fmt.Sprint(mc.calls),
			detail: fmt.Sprintf("and %d for their destroy; apply %.1f s", md.calls, mc.wall.Seconds())},
	}
}

func printTable(w io.Writer, o options, rows []row) {
	fmt.Fprintf(w, "\nbench-e2e: %d run(s) per row, A/B interleaved, medians; ratios are gse / terraform_data within each run.\n\n", o.runs)
	fmt.Fprintln(w, "| work | measured | detail |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s |\n", r.work, r.value, r.detail)
	}
}
