package main

import (
	"fmt"
	"strings"
)

// workload is what a configuration declares: resources of hosts each.
type workload struct {
	resources, hosts int
	running          bool   // running = true on every gse_managed_process
	namespace        string // meta.namespace of the processes; "" is "bench"
}

// hostsHCL lists hosts distinct across resources (resource r, host i).
func hostsHCL(r, n int) string {
	var b strings.Builder
	b.WriteString("[\n")
	for i := 0; i < n; i++ {
		k := r*n + i
		fmt.Fprintf(&b, "    { ip = \"10.%d.%d.%d\", bk_cloud_id = 0 },\n", k>>16&255, k>>8&255, k&255)
	}
	b.WriteString("  ]")
	return b.String()
}

const specHCL = `{
    identity       = { proc_name = "bench", setup_path = "/data/bench", pid_path = "/data/bench/bench.pid", user = "root" }
    control        = { start_cmd = "./start.sh", stop_cmd = "./stop.sh", restart_cmd = "./restart.sh" }
    resource       = { cpu = 10.0, mem = 10.0 }
    monitor_policy = { auto_type = 1 }
  }`

// gseConfig declares w as gse_managed_process resources.
func gseConfig(w workload) string {
	var b strings.Builder
	b.WriteString("terraform {\n  required_providers {\n    gse = { source = \"bk-gse/gse\" }\n  }\n}\n\nprovider \"gse\" {}\n")
	ns := w.namespace
	if ns == "" {
		ns = "bench"
	}
	for r := 0; r < w.resources; r++ {
		fmt.Fprintf(&b, "\nresource \"gse_managed_process\" \"p%d\" {\n  meta  = { namespace = %q, name = \"p%d\" }\n  hosts = %s\n  spec  = %s\n",
			r, ns, r, hostsHCL(r, w.hosts), specHCL)
		if w.running {
			b.WriteString("  running = true\n")
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// dataConfig declares w as terraform_data resources whose input holds the same values.
func dataConfig(w workload) string {
	var b strings.Builder
	for r := 0; r < w.resources; r++ {
		fmt.Fprintf(&b, "\nresource \"terraform_data\" \"p%d\" {\n  input = {\n  meta  = { namespace = \"bench\", name = \"p%d\" }\n  hosts = %s\n  spec  = %s\n  }\n}\n",
			r, r, hostsHCL(r, w.hosts), specHCL)
	}
	return b.String()
}

// bareConfig is the baseline issue 25 and 34 name: n terraform_data with
// nothing in them, `resource "terraform_data" "p" { count = N }`.
func bareConfig(n int) string {
	return fmt.Sprintf("\nresource \"terraform_data\" \"p\" {\n  count = %d\n}\n", n)
}
