package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
// beyond the second. And the same release with a canary of one host per
// group (issue 44), whose requests are compared with the release's.

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

// The arms of the row: the gse_service; terraform_data holding what it is
// given; the gse_service with a canary of one host per group (issue 44).
type releaseArm int

const (
	releaseService releaseArm = iota
	releaseData
	releaseCanary
)

// serviceReleaseConfig is the row's configuration for arm.
func serviceReleaseConfig(arm releaseArm) string {
	canary := ""
	if arm == releaseCanary {
		canary = ", canary = { size = 1 }"
	}
	resource := fmt.Sprintf(`resource "gse_service" "s" {
  bk_biz_id    = %d
  processes    = data.gse_cmdb_processes.biz.groups
  rollout      = { batch_size = "25%%"%s }
  config_files = %s
}`, cmdbBizID, canary, releaseFiles)
	if arm == releaseData {
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
	apis                map[string]int // the apply's requests by API
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
	before := sim.perAPI()
	r.apply = bn.apply(dir, sim)
	r.apis = sim.perAPI()
	for api, n := range before {
		r.apis[api] -= n
	}
	r.pushes = r.apis["jobv3/push_config_file"]
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
	gse := bn.releaseRun(bn.dir("service-release", serviceReleaseConfig(releaseService)), sim)
	data := bn.releaseRun(bn.dir("service-release-data", serviceReleaseConfig(releaseData)), sim)
	canaried := bn.releaseRun(bn.dir("service-release-canary", serviceReleaseConfig(releaseCanary)), sim)
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
	}, canaryRow(gse, canaried)}
	if bn.noAPIConfig == "" {
		return rows
	}
	floor := under(bn, bn.noAPIConfig, func() releaseRun {
		return bn.releaseRun(bn.dir("service-release-noapi", serviceReleaseConfig(releaseService)), sim)
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

// canaryRow is issue 44's: the requests of the same release with a canary
// of one host per group against without, and where they differ, by API:
// what the canary's own tiers and gate cost.
func canaryRow(plain, canaried releaseRun) row {
	var diffs []string
	for _, api := range slices.Sorted(maps.Keys(canaried.apis)) {
		if d := canaried.apis[api] - plain.apis[api]; d != 0 {
			diffs = append(diffs, fmt.Sprintf("%s %+d", api, d))
		}
	}
	return row{
		work:  "requests of the same release with `rollout.canary = { size = 1 }` / without (the canary's tiers and gate the difference)",
		value: fmt.Sprintf("%.3f×", float64(canaried.apply.calls)/float64(plain.apply.calls)),
		detail: fmt.Sprintf("%d / %d requests; by API: %s; apply %.1f s / %.1f s",
			canaried.apply.calls, plain.apply.calls, strings.Join(diffs, ", "), canaried.apply.wall.Seconds(), plain.apply.wall.Seconds()),
	}
}
