package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// The release row of issue 43: a per-instance config change across the
// service row's business (every nginx and svc3 instance, priorities 10 and
// 5, has a file of its own), released in its 2 tiers of 4 batches
// (batch_size = "25%") at the simulator's task latency, against the sum of
// the latencies of the tasks its schedule runs one after another: in each
// batch its pushes (at once), then its reloads and restarts (one task), plus
// a plan of the same configuration.

const (
	releaseLatency = time.Second // the simulator's default
	releaseTiers   = 2
	releaseBatches = 4 // per tier: batch_size = "25%"
)

func serviceReleaseConfig() string {
	return fmt.Sprintf(`terraform {
  required_providers {
    gse = { source = "bk-gse/gse" }
  }
}

provider "gse" {}

variable "release" {
  type = string
}

data "gse_cmdb_processes" "biz" {
  bk_biz_id      = %d
  with_instances = true
}

resource "gse_service" "s" {
  bk_biz_id = %[1]d
  processes = data.gse_cmdb_processes.biz.groups
  rollout   = { batch_size = "25%%" }
  config_files = {
    for k, i in data.gse_cmdb_processes.biz.instances : k => {
      instance  = k
      path      = "/data/${i.context.bk_process_name}/conf"
      file_name = "${i.name}.conf"
      content   = "release ${var.release} of ${i.name} on ${i.context.bk_host_innerip}\n"
      on_change = i.context.bk_process_name == "nginx" ? "reload" : "restart"
    } if contains(["nginx", "svc3"], i.context.bk_process_name)
  }
}
`, cmdbBizID)
}

// release sets the configuration's release variable in dir.
func release(dir, v string) {
	if err := os.WriteFile(filepath.Join(dir, "terraform.tfvars"), []byte("release = \""+v+"\"\n"), 0o600); err != nil {
		panic(err)
	}
}

func (bn *bench) serviceReleaseRows() []row {
	sim, err := bn.startSimulator(releaseLatency, "-cmdb-hosts", strconv.Itoa(processHosts), "-cmdb-process-templates", strconv.Itoa(processTemplates))
	if err != nil {
		return []row{{work: "service release", value: "failed", detail: err.Error()}}
	}
	defer sim.stop()
	fmt.Fprintf(os.Stderr, "service release: %d hosts, %d templates, task latency %v\n", processHosts, processTemplates, releaseLatency)
	dir := bn.dir("service-release", serviceReleaseConfig())
	release(dir, "1")
	create := bn.apply(dir, sim)
	release(dir, "2")
	plan := bn.plan(dir, sim)
	pushes := sim.callsOf("jobv3/push_config_file")
	apply := bn.apply(dir, sim)
	pushes = sim.callsOf("jobv3/push_config_file") - pushes
	bn.destroy(dir, sim)
	sum := time.Duration(releaseTiers*releaseBatches*2) * releaseLatency
	return []row{{
		work: fmt.Sprintf("apply a per-instance config change across one `gse_service` (%d hosts, %d templates; nginx and svc3 files, %d tiers of %d batches, task latency %v), less the plan of the same configuration / the sum of its schedule's task latencies",
			processHosts, processTemplates, releaseTiers, releaseBatches, releaseLatency),
		value: fmt.Sprintf("%.2f×", (apply.wall-plan.wall).Seconds()/sum.Seconds()),
		detail: fmt.Sprintf("apply %.1f s, plan %.1f s; %d batches × (push + operation) × %v = %v; %d push jobs; the create took %.1f s",
			apply.wall.Seconds(), plan.wall.Seconds(), releaseTiers*releaseBatches, releaseLatency, sum, pushes, create.wall.Seconds()),
	}}
}
