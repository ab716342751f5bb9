package service

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/lifecycle"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
)

// action is what an apply does to an instance.
type action string

const (
	actNone    action = ""
	actStart   action = "start"   // send the spec (register it where absent), then start
	actRestart action = "restart" // send the spec, then restart
	actReload  action = "reload"  // send the spec, then reload
	actUpdate  action = "update"  // send the spec alone
	actStop    action = "stop"    // stop
	actRemove  action = "remove"  // stop (where stop_cmd is set), then unregister
)

// descending reports whether a runs in descending priority: GSEKit stops and
// restarts in descending priority and does every other operation in
// ascending priority (bk-process-config-manager
// apps/gsekit/adapters/base/pipeline_managers/process.py,
// ProcessPipelineManager.get_op_type_order); a removal stops.
func (a action) descending() bool { return a == actStop || a == actRestart || a == actRemove }

// op is the GSE operation a performs after the spec is sent (lifecycle.OpNone: none).
func (a action) op() gse.OpType {
	switch a {
	case actStart:
		return gse.OpStart
	case actRestart:
		return gse.OpRestart
	case actReload:
		return gse.OpReload
	case actStop, actRemove:
		return gse.OpStop
	}
	return lifecycle.OpNone
}

// leavesRunning reports whether the health gate follows a.
func (a action) leavesRunning() bool { return a == actStart || a == actRestart || a == actReload }

// instance is one process instance on one host, as an apply schedules it.
type instance struct {
	key      string
	group    string
	host     gse.Host
	priority int64
	unit     string // the isolation unit (order.isolate_by); "" for the whole service
	action   action
	absent   bool // not registered on its host, as far as the state knows
	// specHeld: its host holds its group's spec (the last apply sent it
	// and it has not changed), so its operation goes without update_proc_info.
	specHeld bool
	bkHostID int64
	set      int64   // bk_set_id, 0 when unknown
	module   int64   // bk_module_id, 0 when unknown
	ports    []int   // the TCP ports health.tcp probes
	files    []*file // the config files its host has not got for it
	tier     int     // 1-based, once scheduled
	batch    int     // 1-based within its tier, once scheduled
}

// scheduledInstance is instance k as m describes it, with its isolation unit and
// its action; what only some callers know (absent, specHeld, ports, files,
// tier and batch) they set.
func scheduledInstance(k string, m instanceModel, unit string, a action) *instance {
	return &instance{key: k, group: m.Group.ValueString(), host: m.Host.Expand(), priority: m.Priority.ValueInt64(), unit: unit, action: a,
		bkHostID: m.BkHostID.ValueInt64(), set: m.BkSetID.ValueInt64(), module: m.BkModuleID.ValueInt64()}
}

// pendingOutcome is the outcome of an instance whose action did not run,
// with why: absent where it was never registered, pending otherwise.
func pendingOutcome(absent bool, why string) outcome {
	if absent {
		return outcome{status: statusAbsent, message: why}
	}
	return outcome{status: statusPending, message: why}
}

// tier is one step of a schedule: the instances of one priority (or of all,
// with order.by = "none") for one direction, in batches of hosts.
type tier struct {
	descending bool
	priority   *int64 // nil with order.by = "none"
	batches    [][]*instance
	canary     bool // rollout.canary's (step.schedule)
}

// label names a tier in progress lines: the canary's, its priority and
// direction.
func (t tier) label() string {
	out := " (" + direction(t.descending)
	if t.priority != nil {
		out += fmt.Sprintf(", priority %d", *t.priority)
	}
	if t.canary {
		out += ", canary"
	}
	return out + ")"
}

// buildSchedule puts the instances with an action in tiers: those that run
// in descending priority first (stops, restarts, removals), then the
// ascending ones, one tier per priority as GSEKit's create_pipeline groups
// them (an empty priority is 0), or one per direction with byPriority false.
// Each tier is split into batches of its hosts (batchSize, as rollout's
// batch_size, of the tier's hosts), all the tier's instances on a host in
// one batch, hosts in the order rollouts take them (rollout.OrderHosts: by
// address, those known only by agent id last). It numbers each
// instance's tier and batch.
func buildSchedule(acted []*instance, byPriority bool, batchSize types.String) []tier {
	var out []tier
	for _, desc := range []bool{true, false} {
		byPrio := map[int64][]*instance{}
		for _, in := range acted {
			if in.action.descending() == desc {
				p := int64(0)
				if byPriority {
					p = in.priority
				}
				byPrio[p] = append(byPrio[p], in)
			}
		}
		prios := slices.Sorted(maps.Keys(byPrio))
		if desc {
			slices.Reverse(prios)
		}
		for _, p := range prios {
			t := tier{descending: desc, batches: batchesOf(byPrio[p], batchSize)}
			if byPriority {
				t.priority = &p
			}
			out = append(out, t)
		}
	}
	return number(out)
}

// number numbers each instance's tier and batch as tiers run them.
func number(tiers []tier) []tier {
	for ti, t := range tiers {
		for bi, b := range t.batches {
			for _, in := range b {
				in.tier, in.batch = ti+1, bi+1
			}
		}
	}
	return tiers
}

// batchesOf splits one tier's instances into batches of hosts.
func batchesOf(ins []*instance, batchSize types.String) [][]*instance {
	byHost := map[string][]*instance{}
	var order []gse.Host
	for _, in := range ins {
		k := in.host.Key()
		if _, ok := byHost[k]; !ok {
			order = append(order, in.host)
		}
		byHost[k] = append(byHost[k], in)
	}
	order = rollout.OrderHosts(order)
	var out [][]*instance
	for part := range slices.Chunk(order, rollout.BatchLen(batchSize, len(order))) {
		var b []*instance
		for _, h := range part {
			b = append(b, byHost[h.Key()]...)
		}
		slices.SortFunc(b, func(x, y *instance) int { return cmp.Compare(x.key, y.key) })
		out = append(out, b)
	}
	return out
}
