package main

import (
	"fmt"
	"os"
	"strconv"
)

// The processes row: a business's processes from gse_cmdb_processes, one
// gse_managed_process per group, against terraform_data fed the same groups,
// and the requests one read costs against the bounds of issue 32.

// Its business: processHosts hosts, processTemplates templates on every
// module (nginx and three more with 2 instances a host, agent with one), and
// legacy on the first module's 100 hosts.
const (
	processHosts     = 2000
	processTemplates = 5
)

func processesConfig(gse bool) string {
	head := fmt.Sprintf("terraform {\n  required_providers {\n    gse = { source = \"bk-gse/gse\" }\n  }\n}\n\nprovider \"gse\" {}\n\n"+
		"data \"gse_cmdb_processes\" \"biz\" {\n  bk_biz_id = %d\n}\n", cmdbBizID)
	if !gse {
		return head + "\nresource \"terraform_data\" \"p\" {\n  for_each = data.gse_cmdb_processes.biz.groups\n  input    = each.value\n}\n"
	}
	return head + "\nresource \"gse_managed_process\" \"p\" {\n  for_each = data.gse_cmdb_processes.biz.groups\n" +
		"  meta     = each.value.meta\n  spec     = each.value.spec\n  hosts    = each.value.hosts\n  running  = true\n}\n"
}

func (bn *bench) processRows() []row {
	sim, err := bn.startSimulator(bn.o.taskLatency, "-cmdb-hosts", strconv.Itoa(processHosts), "-cmdb-process-templates", strconv.Itoa(processTemplates))
	if err != nil {
		return []row{{work: "processes", value: "failed", detail: err.Error()}}
	}
	defer sim.stop()
	fmt.Fprintf(os.Stderr, "processes: %d hosts, %d templates\n", processHosts, processTemplates)
	a, b := bn.dir("processes-data", processesConfig(false)), bn.dir("processes-gse", processesConfig(true))
	before := map[string]int{}
	_ = sim.get("/_sim/calls", &before)
	bn.plan(b, sim)
	after := map[string]int{}
	_ = sim.get("/_sim/calls", &after)
	rows := processHosts*processTemplates + 100 // one row per process: every template on every host, and legacy on the first module's 100
	procReads, hostReads := after["cc/list_process_related_info"]-before["cc/list_process_related_info"], after["cc/list_biz_hosts"]-before["cc/list_biz_hosts"]
	p := bn.abRuns(func() measure { return bn.plan(a, sim) }, func() measure { return bn.plan(b, sim) })
	return []row{
		ratioRow(fmt.Sprintf("plan `for_each` over `gse_cmdb_processes` groups (%d hosts, %d templates, %d process rows) / `terraform_data` fed the same groups", processHosts, processTemplates, rows), p),
		{
			work:  "requests of one `gse_cmdb_processes` read: `list_process_related_info` / `list_biz_hosts`",
			value: fmt.Sprintf("%d / %d", procReads, hostReads),
			detail: fmt.Sprintf("bounds ⌈rows/1000⌉ + 1 = %d and ⌈hosts/500⌉ + 1 = %d",
				(rows+999)/1000+1, (processHosts+499)/500+1),
		},
	}
}
