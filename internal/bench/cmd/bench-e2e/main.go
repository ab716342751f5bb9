// Command bench-e2e measures the provider end to end, the way a user runs it:
// it builds the provider and the simulator, points Terraform at the provider
// with dev_overrides, and times terraform plan / apply / destroy of generated
// configurations side by side with terraform_data holding the same data, A/B
// interleaved. It prints a markdown table of ratios (each taken within one
// run), the CPU of Terraform itself and of the provider, the provider's peak
// RSS, and HTTP requests counted by the simulator (GET /_sim/calls). It is a
// benchmark: nothing in `make test` runs it.
//
//	go run ./internal/bench/cmd/bench-e2e -runs 3 -hosts 10000
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

type options struct {
	repo, providerSrc  string
	baselineSrc        string // a checkout whose provider the refresh and many rows also measure, in the same runs
	hosts, resources   int
	refreshResources   int
	runs               int
	taskLatency        time.Duration
	createLatency      time.Duration
	only               map[string]bool
	providerEnv        []string
	keep               bool
	parallelism        int
	terraform          string
	fleet              []int   // CMDB hosts of the fleet rows, ascending
	workspaces         int     // terraform runs at once of the workspaces row
	workspaceResources int     // one-host resources of each
	quota              float64 // requests per second the simulator allows the app in that row
	fleetWorkspaces    int     // terraform runs at once of the fleet workspaces row
	fleetQuota         float64 // requests per second the simulator allows the app in that row
}

func main() {
	var o options
	var only, providerEnv, fleet string
	var quick bool
	flag.StringVar(&o.repo, "repo", ".", "repository root (builds the simulator, and the provider unless -provider-src)")
	flag.StringVar(&o.providerSrc, "provider-src", "", "build the provider from this checkout instead (to measure an older commit)")
	flag.StringVar(&o.baselineSrc, "baseline-src", "", "also build the provider of this checkout and measure it in the refresh and many rows, interleaved with the others (before/after in one run)")
	flag.IntVar(&o.hosts, "hosts", 10000, "hosts of the one-resource plan and apply rows (apply also at a tenth of them)")
	flag.IntVar(&o.resources, "resources", 100, "one-host resources of the many-resources apply row and the 100-creates request row")
	flag.IntVar(&o.refreshResources, "refresh-resources", 1000, "resources of the refresh row")
	flag.IntVar(&o.runs, "runs", 3, "A/B runs per row (medians are reported)")
	flag.DurationVar(&o.taskLatency, "task-latency", 0, "simulator task latency of the plan/apply/refresh rows; 0: tasks finish at once")
	flag.DurationVar(&o.createLatency, "create-latency", 2*time.Second, "task latency L of the per-create and request rows")
	flag.StringVar(&only, "only", "", "comma-separated rows to run: plan,apply,fleet,many,refresh,create,requests,workspaces,fleetworkspaces,processes,configfile,service,release (default all)")
	flag.StringVar(&fleet, "fleet", "1000,10000", "comma-separated CMDB host counts of the fleet rows (gse_cmdb_hosts), ascending, multiples of 200")
	flag.IntVar(&o.workspaces, "workspaces", 6, "terraform runs at once of the workspaces row")
	flag.IntVar(&o.workspaceResources, "workspace-resources", 25, "one-host resources of each run of the workspaces row")
	flag.Float64Var(&o.quota, "quota", 10, "requests per second the installation allows the app in the workspaces row")
	flag.IntVar(&o.fleetWorkspaces, "fleet-workspaces", 10, "terraform runs at once of the fleetworkspaces row, each one resource on every CMDB host of the largest -fleet size")
	flag.Float64Var(&o.fleetQuota, "fleet-quota", 100, "requests per second the installation allows the app in the fleetworkspaces row")
	flag.StringVar(&providerEnv, "provider-env", "", "comma-separated NAME=value added to the environment of every terraform run (e.g. TF_LOG_SDK=trace)")
	flag.BoolVar(&quick, "quick", false, "quick look: 1 run, 1000 hosts, 200 resources to refresh, fleets of 200 and 1200 CMDB hosts")
	flag.BoolVar(&o.keep, "keep", false, "keep the work directory")
	flag.IntVar(&o.parallelism, "parallelism", 10, "terraform -parallelism")
	flag.StringVar(&o.terraform, "terraform", "terraform", "terraform CLI")
	flag.Parse()
	for _, f := range strings.Split(fleet, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 || n%200 != 0 || len(o.fleet) > 0 && n <= o.fleet[len(o.fleet)-1] {
			log.Fatalf("-fleet %q: want ascending multiples of 200", fleet)
		}
		o.fleet = append(o.fleet, n)
	}
	if quick {
		o.runs, o.hosts, o.refreshResources, o.fleet = 1, 1000, 200, []int{200, configFileFleet}
	}
	o.only = map[string]bool{}
	for _, r := range strings.Split(only, ",") {
		if r != "" {
			o.only[r] = true
		}
	}
	if providerEnv != "" {
		o.providerEnv = strings.Split(providerEnv, ",")
	}
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

func (o options) want(row string) bool { return len(o.only) == 0 || o.only[row] }

func run(o options) error {
	work, err := os.MkdirTemp("", "bench-e2e-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(work)
	} else {
		fmt.Fprintln(os.Stderr, "work directory:", work)
	}
	b, err := setup(o, work)
	if err != nil {
		return err
	}
	defer b.close()

	var rows []row
	if o.want("plan") {
		rows = append(rows, b.planRow())
	}
	if o.want("apply") {
		rows = append(rows, b.applyRows()...)
	}
	if o.want("fleet") {
		rows = append(rows, b.fleetRows()...)
	}
	if o.want("many") {
		rows = append(rows, b.manyRows()...)
	}
	if o.want("refresh") {
		rows = append(rows, b.refreshRow()...)
	}
	if o.want("create") {
		rows = append(rows, b.createRows()...)
	}
	if o.want("requests") {
		rows = append(rows, b.requestRows()...)
	}
	if o.want("workspaces") {
		rows = append(rows, b.workspaceRows()...)
	}
	if o.want("fleetworkspaces") {
		rows = append(rows, b.fleetWorkspaceRows()...)
	}
	if o.want("processes") {
		rows = append(rows, b.processRows()...)
	}
	if o.want("configfile") {
		rows = append(rows, b.configFileRows()...)
	}
	if o.want("service") {
		rows = append(rows, b.serviceRows()...)
	}
	if o.want("release") {
		rows = append(rows, b.serviceReleaseRows()...)
	}
	printTable(os.Stdout, o, rows)
	return nil
}

// absPath resolves p against the working directory.
func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}
