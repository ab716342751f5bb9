package status

import (
	"context"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
)

// Observed is what one read found of a process on its hosts, both by host
// identity (gse.Host.Key): the entry of each host where GSE has it
// registered, and, through the gateway, the agents that are down, on whose
// hosts GSE can say nothing.
type Observed struct {
	Found map[string]gse.ProcStatus
	Down  map[string]gse.AgentState
}

// Seen is what a read says of a process on one host.
type Seen int

const (
	Absent     Seen = iota // not registered there
	Registered             // registered there, as its entry says
	Unknown                // the host's agent is down: GSE cannot say
)

// Read is the one read of a process on targets that gse_managed_process's
// refresh and gse_process_status share: through the gateway it asks
// list_agent_state first (hosts.DownAgents), then get_proc_status_v2 (Find)
// on the hosts whose agent runs.
func Read(ctx context.Context, c *gse.Client, meta gse.Meta, targets []gse.Host) (Observed, error) {
	down, err := hosts.DownAgents(ctx, c, targets)
	if err != nil {
		return Observed{}, err
	}
	found, err := Find(ctx, c, meta, hosts.Up(targets, down))
	if err != nil {
		return Observed{}, err
	}
	return Observed{Found: found, Down: down}, nil
}

// At is what o says of the process on h, with the entry read there.
func (o Observed) At(h gse.Host) (gse.ProcStatus, Seen) {
	key := h.Key()
	e, found := o.Found[key]
	switch _, down := o.Down[key]; {
	case down:
		return e, Unknown
	case found:
		return e, Registered
	}
	return e, Absent
}

// HostStatus is host_status of list as o found it: the entry read on each
// host where the process is registered, and prior's entry on each host whose
// agent is down, as what GSE cannot say now is not drift. A host where the
// process is absent has no entry.
func (o Observed) HostStatus(list []hosts.Pair, prior HostStatus) HostStatus {
	entries := make(map[string]HostEntry, len(list))
	for _, h := range list {
		k := h.StatusKey()
		switch e, seen := o.At(h.Host()); seen {
		case Registered:
			entries[k] = EntryOf(e)
		case Unknown:
			if old, ok := prior.Entries[k]; ok {
				entries[k] = old
			}
		}
	}
	return NewHostStatus(entries)
}
