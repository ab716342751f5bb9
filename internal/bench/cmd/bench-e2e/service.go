package main

import (
	"fmt"
	"os"
	"strconv"
)

// The service row of issue 43: the business of the processes row, with
// proc_num 2 for nginx and the three further templates, as one gse_service
// from gse_cmdb_processes, planned against one terraform_data whose input
// holds the same processes and instances (the data source read alike, with
// instances, as examples/cmdb-services reads it for its config files),
// against the for_each over gse_managed_process of the processes row (the
// data source read alike, without instances), and, passing instances as
// well, against the same terraform_data: the path whose conversion in
// Terraform grows with the square of the instances.

// serviceArm is one configuration of the row.
type serviceArm int

const (
	serviceData      serviceArm = iota // terraform_data holding groups and instances
	serviceGroups                      // gse_service of groups, the data source with instances
	serviceBare                        // gse_service of groups, the data source without instances
	serviceInstances                   // gse_service of groups and instances
)

func serviceConfig(arm serviceArm) string {
	withInstances := "\n  with_instances = true"
	if arm == serviceBare {
		withInstances = ""
	}
	head := fmt.Sprintf("terraform {\n  required_providers {\n    gse = { source = \"bk-gse/gse\" }\n  }\n}\n\nprovider \"gse\" {}\n\n"+
		"data \"gse_cmdb_processes\" \"biz\" {\n  bk_biz_id = %d%s\n}\n", cmdbBizID, withInstances)
	switch arm {
	case serviceData:
		return head + "\nresource \"terraform_data\" \"s\" {\n  input = {\n    processes = data.gse_cmdb_processes.biz.groups\n    instances = data.gse_cmdb_processes.biz.instances\n  }\n}\n"
	case serviceInstances:
		return head + "\nresource \"gse_service\" \"s\" {\n  processes = data.gse_cmdb_processes.biz.groups\n  instances = data.gse_cmdb_processes.biz.instances\n}\n"
	}
	return head + "\nresource \"gse_service\" \"s\" {\n  processes = data.gse_cmdb_processes.biz.groups\n}\n"
}

func (bn *bench) serviceRows() []row {
	sim, err := bn.startSimulator(bn.o.taskLatency, "-cmdb-hosts", strconv.Itoa(processHosts), "-cmdb-process-templates", strconv.Itoa(processTemplates))
	if err != nil {
		return []row{{work: "service", value: "failed", detail: err.Error()}}
	}
	defer sim.stop()
	fmt.Fprintf(os.Stderr, "service: %d hosts, %d templates\n", processHosts, processTemplates)
	planOf := func(name string, cfg string) func() measure {
		dir := bn.dir(name, cfg)
		return func() measure { return bn.plan(dir, sim) }
	}
	data, groups := planOf("service-data", serviceConfig(serviceData)), planOf("service-gse", serviceConfig(serviceGroups))
	bare, each := planOf("service-bare", serviceConfig(serviceBare)), planOf("service-foreach", processesConfig(true))
	given := planOf("service-instances", serviceConfig(serviceInstances))
	what := fmt.Sprintf("%d hosts, %d templates", processHosts, processTemplates)
	return []row{
		ratioRow("plan one `gse_service` ("+what+", `processes` from `groups`, the data source read with `instances`) / one `terraform_data` whose `input` holds the same `processes` and `instances`",
			bn.abRuns(data, groups)),
		ratioRow("plan one `gse_service` ("+what+", the data source read without `instances`) / `for_each` over `gse_managed_process` of the same groups", bn.abRuns(each, bare)),
		ratioRow("plan one `gse_service` ("+what+") passing `instances` too / the same `terraform_data` (Terraform's conversion of the map grows with its square)", bn.abRuns(data, given)),
	}
}
