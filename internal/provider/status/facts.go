package status

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
)

// EntryOf is the host_status entry of a host whose status GSE reported.
func EntryOf(e gse.ProcStatus) HostEntry {
	return HostEntry{Status: types.StringValue(Name(e.Status)), Managed: types.BoolValue(e.IsAuto)}
}

// Fact is what is known of a process on one host, in plain values: whether
// it runs and whether the agent hosts it, each nil where it is not known.
type Fact struct {
	Running, Managed *bool
}

// Fact is what e knows; a null or unknown value knows nothing.
func (e HostEntry) Fact() Fact {
	var f Fact
	if known(e.Status) {
		running := e.Status.ValueString() == "running"
		f.Running = &running
	}
	if known(e.Managed) {
		f.Managed = e.Managed.ValueBoolPointer()
	}
	return f
}

// Facts are the facts of the entries of list's hosts, by host identity
// (gse.Host.Key): the lifecycle steps know a host only as the client
// addresses it, and find its entry so in any spelling. A host without an
// entry has none.
func (m HostStatus) Facts(list []hosts.Pair) map[string]Fact {
	out := make(map[string]Fact, len(list))
	for _, h := range list {
		if e, ok := m.Entries[h.StatusKey()]; ok {
			out[h.Host().Key()] = e.Fact()
		}
	}
	return out
}

// Entry is f as a host_status entry: a fact not known is null.
func (f Fact) Entry() HostEntry {
	var e HostEntry
	if f.Running != nil {
		e.Status = types.StringValue(map[bool]string{true: "running", false: "stopped"}[*f.Running])
	}
	if f.Managed != nil {
		e.Managed = types.BoolValue(*f.Managed)
	}
	return e
}

// RunSettled reports whether f shows the run state an update wants (running
// or not); a fact not known shows none.
func (f Fact) RunSettled(running bool) bool { return f.Running != nil && *f.Running == running }

// HostingSettled reports whether f shows the hosting an update wants
// (managed or not).
func (f Fact) HostingSettled(managed bool) bool { return f.Managed != nil && *f.Managed == managed }

// known reports whether v is neither null nor unknown.
func known(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }
