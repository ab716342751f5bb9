package main

import (
	"fmt"
	"os"
)

// The fleet rows: hosts from gse_cmdb_hosts, a list of exactly the type of
// gse_managed_process.hosts, so Terraform core converts it with one type
// comparison; the literal-list rows (planRow, applyRow) measure core's
// tuple-to-list conversion instead.

const cmdbBizID = 2 // the simulator's CMDB business

// fleetSelection selects n hosts of the simulator's business: whole sets of
// 200 hosts (bk_set_ids), or the whole business when n is all of it.
func fleetSelection(n, all int) string {
	if n >= all {
		return ""
	}
	return fmt.Sprintf("  bk_set_ids = range(101, %d)\n", 101+n/200)
}

// fleetConfig is one gse_cmdb_hosts of n hosts feeding resource: the
// provider's gse_managed_process (in namespace ns, "" for "bench"), or
// terraform_data with the hosts as input.
func fleetConfig(n, all int, gse, running bool, ns string) string {
	head := fmt.Sprintf("terraform {\n  required_providers {\n    gse = { source = \"bk-gse/gse\" }\n  }\n}\n\nprovider \"gse\" {}\n\n"+
		"data \"gse_cmdb_hosts\" \"fleet\" {\n  bk_biz_id = %d\n%s}\n", cmdbBizID, fleetSelection(n, all))
	if !gse {
		return head + "\nresource \"terraform_data\" \"p\" {\n  input = data.gse_cmdb_hosts.fleet.hosts\n}\n"
	}
	run := ""
	if running {
		run = "  running = true\n"
	}
	if ns == "" {
		ns = "bench"
	}
	return head + fmt.Sprintf("\nresource \"gse_managed_process\" \"p\" {\n  meta  = { namespace = %q, name = \"fleet\" }\n  hosts = data.gse_cmdb_hosts.fleet.hosts\n  spec  = %s\n%s}\n", ns, specHCL, run)
}

// fleetRows measure plan and apply of the fleet at each size (apply also
// without API work), and how the provider's side grows from the smallest
// size to the largest.
func (bn *bench) fleetRows() []row {
	var rows []row
	sizes := bn.o.fleet
	all := sizes[len(sizes)-1]
	plans, applies := make([]pair, len(sizes)), make([]pair, len(sizes))
	for i, n := range sizes {
		fmt.Fprintf(os.Stderr, "fleet plan: %d CMDB hosts\n", n)
		a, b := bn.dir("fleet-plan-data", fleetConfig(n, all, false, false, "")), bn.dir("fleet-plan-gse", fleetConfig(n, all, true, false, ""))
		plans[i] = bn.abRuns(func() measure { return bn.plan(a, bn.fast) }, func() measure { return bn.plan(b, bn.fast) })
		rows = append(rows, ratioRow(fmt.Sprintf("plan one `gse_managed_process` with `hosts = data.gse_cmdb_hosts.fleet.hosts` (%d CMDB hosts) / `terraform_data` with `input =` them", n), plans[i]))
	}
	for i, n := range sizes {
		fmt.Fprintf(os.Stderr, "fleet apply: %d CMDB hosts\n", n)
		m := bn.applyArms("fleet-apply", fleetConfig(n, all, false, true, ""), fleetConfig(n, all, true, true, ""), bn.fast)
		applies[i] = m.pair(armData, armGSE)
		rows = append(rows, ratioRow(fmt.Sprintf("apply it (%d CMDB hosts, `running = true`, task latency %v) / `terraform_data`", n, bn.o.taskLatency), applies[i]))
		rows = append(rows, floorRow(fmt.Sprintf("%d CMDB hosts", n), m)...)
	}
	if len(sizes) > 1 {
		small, big := sizes[0], all
		grow := func(p []pair) string {
			return fmt.Sprintf("%.1f×", median(p[len(p)-1].b, secs)/median(p[0].b, secs))
		}
		rows = append(rows, row{
			work:   fmt.Sprintf("fleet growth: `gse_managed_process` time at %d hosts / at %d hosts, plan and apply", big, small),
			value:  grow(plans) + " / " + grow(applies),
			detail: fmt.Sprintf("%.3g× the hosts; `terraform_data`: %.1f× / %.1f×", float64(big)/float64(small), median(plans[len(plans)-1].a, secs)/median(plans[0].a, secs), median(applies[len(applies)-1].a, secs)/median(applies[0].a, secs)),
		})
	}
	return rows
}
