package main

import (
	"fmt"
	"os"
	"strconv"
)

// The service row of issue 43: the business of the processes row, with
// proc_num 2 for nginx and the three further templates, as one gse_service
// (processes and instances from gse_cmdb_processes), against one
// terraform_data whose input holds the same processes and instances, and
// against the for_each over gse_managed_process of the processes row.

func serviceConfig(gse bool) string {
	head := fmt.Sprintf("terraform {\n  required_providers {\n    gse = { source = \"bk-gse/gse\" }\n  }\n}\n\nprovider \"gse\" {}\n\n"+
		"data \"gse_cmdb_processes\" \"biz\" {\n  bk_biz_id      = %d\n  with_instances = true\n}\n", cmdbBizID)
	if !gse {
		return head + "\nresource \"terraform_data\" \"s\" {\n  input = {\n    processes = data.gse_cmdb_processes.biz.groups\n    instances = data.gse_cmdb_processes.biz.instances\n  }\n}\n"
	}
	return head + "\nresource \"gse_service\" \"s\" {\n  processes = data.gse_cmdb_processes.biz.groups\n  instances = data.gse_cmdb_processes.biz.instances\n}\n"
}

func (bn *bench) serviceRows() []row {
	sim, err := bn.startSimulator(bn.o.taskLatency, "-cmdb-hosts", strconv.Itoa(processHosts), "-cmdb-process-templates", strconv.Itoa(processTemplates))
	if err != nil {
		return []row{{work: "service", value: "failed", detail: err.Error()}}
	}
	defer sim.stop()
	fmt.Fprintf(os.Stderr, "service: %d hosts, %d templates\n", processHosts, processTemplates)
	data, svc := bn.dir("service-data", serviceConfig(false)), bn.dir("service-gse", serviceConfig(true))
	each := bn.dir("service-foreach", processesConfig(true))
	vsData := bn.abRuns(func() measure { return bn.plan(data, sim) }, func() measure { return bn.plan(svc, sim) })
	vsEach := bn.abRuns(func() measure { return bn.plan(each, sim) }, func() measure { return bn.plan(svc, sim) })
	what := fmt.Sprintf("%d hosts, %d templates", processHosts, processTemplates)
	return []row{
		ratioRow("plan one `gse_service` ("+what+", `instances` given) / one `terraform_data` whose `input` holds the same `processes` and `instances`", vsData),
		ratioRow("plan one `gse_service` ("+what+") / `for_each` over `gse_managed_process` of the same groups", vsEach),
	}
}
