package lifecycle

import (
	"maps"
	"reflect"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// Desired is a process as a configuration asks for it, in the client's terms.
type Desired struct {
	Meta gse.Meta // labels included
	// Spec is nil for a process imported and not applied since: GSE cannot
	// read a spec back, and operations then act on the registered one.
	Spec *gse.Spec
	// SpecHeld says GSE holds Spec on Hosts already (the last apply sent it
	// there): Send operates without update_proc_info first.
	SpecHeld bool
	Hosts    []gse.Host
	Managed  bool  // the agent hosts the process
	Running  *bool // nil: the run state is left as it is
	// RestartTriggers and ReloadTriggers are the values of the triggers, the
	// same string for the same value (nil when unset): one that changes
	// restarts or reloads the process on every host.
	RestartTriggers, ReloadTriggers *string
	Rollout                         *rollout.Settings
}

// Prior is what an Update starts from: what was applied last, and what the
// last refresh knew of each host, by host identity (gse.Host.Key; see
// status.HostStatus.Facts).
type Prior struct {
	Desired
	Status map[string]status.Fact
}

// running reports whether d asks for the process running.
func (d Desired) running() bool { return d.Running != nil && *d.Running }

// sameSpec reports whether d and o send GSE the same spec and labels; labels
// set but empty are not the same as none.
func (d Desired) sameSpec(o Desired) bool {
	return reflect.DeepEqual(d.Spec, o.Spec) && (d.Meta.Labels == nil) == (o.Meta.Labels == nil) && maps.Equal(d.Meta.Labels, o.Meta.Labels)
}

// Applied is how far an Update got, so that after a failure the state
// records what exists: each step that succeeded, in the order they run.
type Applied struct {
	Cleared []gse.Host // prior hosts the process was removed from
	Added   []gse.Host // new hosts where it may now be registered
	Hosting bool       // the hosting (Managed) asked for is in effect
	Spec    bool       // a changed spec (and labels) is in effect
	Running bool       // the run state asked for is in effect
	// Restart and Reload: the trigger asked for is applied.
	Restart, Reload bool
}
