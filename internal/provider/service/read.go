package service

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// Read finds each instance as GSE reports it: one status read per process
// (get_proc_status_v2, in chunks of hosts), after list_agent_state through
// the gateway. An instance whose last action is done loses its action, tier
// and batch, and the schedule keeps only what is left to run, so the next
// plan shows only what changes; a failed or pending one keeps them, and its
// status unless the process is gone from its host.
func (r *serviceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var s serviceModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &s)...); resp.Diagnostics.HasError() {
		return
	}
	models := instancesOf(s.Instances.Map(&resp.Diagnostics))
	if resp.Diagnostics.HasError() || !r.refresh(ctx, models, &resp.Diagnostics) || !r.verifyFiles(ctx, &s, models, &resp.Diagnostics) {
		return
	}
	s.Instances = instancesValue(models, &resp.Diagnostics)
	s.Schedule = leftToRun(ctx, s.Schedule, models, &resp.Diagnostics)
	s.FailedCount, s.PendingCount = counts(models)
	resp.Diagnostics.Append(resp.State.Set(ctx, &s)...)
}

// refresh reads every instance of models: the agents of all their hosts
// once (through the gateway), then each process on its hosts whose agent
// runs: one list_agent_state per 1,000 hosts and one get_proc_status_v2 per
// process and 1,000 hosts, maxReads processes at once.
func (r *serviceResource) refresh(ctx context.Context, models map[string]instanceModel, diags *diag.Diagnostics) bool {
	byProcess := map[string][]string{}
	seen := map[string]bool{}
	var all []gse.Host
	for k, m := range models {
		name, _, _ := strings.Cut(k, "@")
		byProcess[name] = append(byProcess[name], k)
		if h := m.Host.Expand(); !seen[h.Key()] {
			seen[h.Key()] = true
			all = append(all, h)
		}
	}
	down, err := hosts.DownAgents(ctx, r.client, all)
	if err != nil {
		plumbing.AddAPIError(diags, "read the agents of", serviceName(models), err, "")
		return false
	}
	// The processes are read at once, as Terraform refreshes the resources of
	// a for_each: one after another, each read's task latency added up.
	names := slices.Sorted(maps.Keys(byProcess))
	found, failed, err := readAll(ctx, len(names), func(ctx context.Context, i int) (map[string]gse.ProcStatus, error) {
		return status.Find(ctx, r.client, keyMeta(names[i]), hosts.Up(hostsOfKeys(models, byProcess[names[i]]), down))
	})
	if err != nil {
		plumbing.AddAPIError(diags, "read the status of", keyMeta(names[failed]), err, "")
		return false
	}
	for i, name := range names {
		o := status.Observed{Found: found[i], Down: down}
		for _, k := range byProcess[name] {
			models[k] = refreshed(models[k], o, models[k].Host.Expand())
		}
	}
	return true
}

// hostsOfKeys are the hosts of the instances keys name.
func hostsOfKeys(models map[string]instanceModel, keys []string) []gse.Host {
	hs := make([]gse.Host, len(keys))
	for i, k := range keys {
		hs[i] = models[k].Host.Expand()
	}
	return hs
}

// serviceName names the service in messages: its namespaces.
type serviceName map[string]instanceModel

func (s serviceName) String() string {
	ns := map[string]bool{}
	for k := range s {
		ns[keyMeta(k).Namespace] = true
	}
	return "the service of namespace " + strings.Join(slices.Sorted(maps.Keys(ns)), ", ")
}

// refreshed is m as read o found it on h.
func refreshed(m instanceModel, o status.Observed, h gse.Host) instanceModel {
	e, seen := o.At(h)
	found := observed(e, seen == status.Registered)
	switch {
	case seen == status.Unknown && resumable(m):
		// Its agent is down: what the last apply left to do stays to do.
		return m
	case seen == status.Unknown:
		m.Status = types.StringValue(statusUnreachable)
		return m
	case resumable(m):
		m.PID = types.Int64Value(found.pid)
		if found.status == statusAbsent {
			m.Status = types.StringValue(statusAbsent)
		}
		return m
	}
	return m.cleared().withOutcome(found)
}

// leftToRun is schedule with only the instances models still have to run.
func leftToRun(ctx context.Context, schedule types.List, models map[string]instanceModel, diags *diag.Diagnostics) types.List {
	var tiers []tierModel
	diags.Append(schedule.ElementsAs(ctx, &tiers, false)...)
	var out []tierModel
	for _, t := range tiers {
		var batches [][]string
		for _, b := range t.Batches {
			b = slices.DeleteFunc(slices.Clone(b), func(k string) bool { m, ok := models[k]; return !ok || !resumable(m) })
			if len(b) > 0 {
				batches = append(batches, b)
			}
		}
		if len(batches) > 0 {
			t.Batches = batches
			out = append(out, t)
		}
	}
	if out == nil {
		out = []tierModel{}
	}
	v, d := types.ListValueFrom(ctx, tierType, out)
	diags.Append(d...)
	return v
}
