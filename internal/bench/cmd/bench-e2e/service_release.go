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
//
// Beside it, the same change applied where no release runs at all: by
// terraform_data holding the same processes and config files (what
// Terraform alone costs to apply a change of that value), and, when built,
// by the provider without API work (Terraform, the framework and the
// provider's own planning). Their apply less plan is what the release row
// pays before its first request; the last row is the release's own cost
// beyond the second.

const (
	releaseLatency = time.Second // the simulator's default
	releaseTiers   = 2
	releaseBatches = 4 // per tier: batch_size = "25%"
)

// releaseFiles is the config files' expression: a file per nginx and svc3
// instance, whose content names the release.
const releaseFiles = `{
    for k, i in data.gse_cmdb_processes.biz.instances : k => {
      instance  = k
      path      = "/data/${i.context.bk_process_name}/conf"
      file_name = "${i.name}.conf"
      content   = "release ${var.release} of ${i.name} on ${i.context.bk_host_innerip}\n"
      on_change = i.context.bk_process_name == "nginx" ? "reload" : "restart"
    } if contains(["nginx", "svc3"], i.context.bk_process_name)
  }`

// serviceReleaseConfig is the row's configuration; with data, a
// terraform_data holds what the gse_service is given.
func serviceReleaseConfig(data bool) string {
	resource := fmt.Sprintf(`resource "gse_service" "s" {
  bk_biz_id    = %d
  processes    = data.gse_cmdb_processes.biz.groups
  rollout      = { batch_size = "25%%" }
  config_files = %s
}`, cmdbBizID, releaseFiles)
	if data {
		resource = fmt.Sprintf(`resource "terraform_data" "s" {
  input = {
    processes    = data.gse_cmdb_processes.biz.groups
    config_files = %s
  }
}`, releaseFiles)
	}
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

%s
`, cmdbBizID, resource)
}

// release sets the configuration's release variable in dir.
func release(dir, v string) {
	if err := os.WriteFile(filepath.Join(dir, "terraform.tfvars"), []byte("release = \""+v+"\"\n"), 0o600); err != nil {
		panic(err)
	}
}

// releaseRun is one arm's create, the change's plan and its apply.
type releaseRun struct {
	create, plan, apply measure
	pushes              int
}

// applied is the change's apply less its plan: what applying costs beyond
// planning.
func (r releaseRun) applied() time.Duration { return r.apply.wall - r.plan.wall }

// releaseRun creates the configuration of dir, then plans and applies the
// change of its release, then destroys it.
func (bn *bench) releaseRun(dir string, sim *simulator) releaseRun {
	var r releaseRun
	release(dir, "1")
	r.create = bn.apply(dir, sim)
	release(dir, "2")
	r.plan = bn.plan(dir, sim)
	pushes := sim.callsOf("jobv3/push_config_file")
	r.apply = bn.apply(dir, sim)
	r.pushes = sim.callsOf("jobv3/push_config_file") - pushes
	bn.destroy(dir, sim)
	return r
}

func (bn *bench) serviceReleaseRows() []row {
	sim, err := bn.startSimulator(releaseLatency, "-cmdb-hosts", strconv.Itoa(processHosts), "-cmdb-process-templates", strconv.Itoa(processTemplates))
	if err != nil {
		return []row{{work: "service release", value: "failed", detail: err.Error()}}
	}
	defer sim.stop()
	fmt.Fprintf(os.Stderr, "service release: %d hosts, %d templates, task latency %v\n", processHosts, processTemplates, releaseLatency)
	gse := bn.releaseRun(bn.dir("service-release", serviceReleaseConfig(false)), sim)
	data := bn.releaseRun(bn.dir("service-release-data", serviceReleaseConfig(true)), sim)
	sum := time.Duration(releaseTiers*releaseBatches*2) * releaseLatency
	ratio := func(d time.Duration) string { return fmt.Sprintf("%.2f×", d.Seconds()/sum.Seconds()) }
	spent := func(r releaseRun) string {
		return fmt.Sprintf("apply %.1f s, plan %.1f s (Terraform CPU %.1f s, provider CPU %.1f s in the apply); the create took %.1f s",
			r.apply.wall.Seconds(), r.plan.wall.Seconds(), r.apply.coreCPU.Seconds(), r.apply.cpu.Seconds(), r.create.wall.Seconds())
	}
	rows := []row{{
		work: fmt.Sprintf("apply a per-instance config change across one `gse_service` (%d hosts, %d templates; nginx and svc3 files, %d tiers of %d batches, task latency %v), less the plan of the same configuration / the sum of its schedule's task latencies",
			processHosts, processTemplates, releaseTiers, releaseBatches, releaseLatency),
		value: ratio(gse.applied()),
		detail: fmt.Sprintf("%s; %d batches × (push + operation) × %v = %v; %d push jobs",
			spent(gse), releaseTiers*releaseBatches, releaseLatency, sum, gse.pushes),
	}, {
		work:   "floor: the same change applied by one `terraform_data` holding the same `processes` and `config_files`, less its plan / the same sum",
		value:  ratio(data.applied()),
		detail: spent(data),
	}}
	if bn.noAPIConfig == "" {
		return rows
	}
	floor := under(bn, bn.noAPIConfig, func() releaseRun {
		return bn.releaseRun(bn.dir("service-release-noapi", serviceReleaseConfig(false)), sim)
	})
	return append(rows, row{
		work:   "floor: the same change without API work, less its plan / the same sum",
		value:  ratio(floor.applied()),
		detail: spent(floor),
	}, row{
		work:   "the release beyond that floor: (apply less plan) less the floor's / the same sum",
		value:  ratio(gse.applied() - floor.applied()),
		detail: fmt.Sprintf("%.1f s less %.1f s", gse.applied().Seconds(), floor.applied().Seconds()),
	})
}
