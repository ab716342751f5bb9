package service

import (
	"maps"
	"reflect"
	"slices"
	"strings"
)

// planned is every instance's action, and the instances that drifted.
type planned struct {
	actions map[string]action
	drifted []string // keys whose action repairs what a refresh found
	// released are the keys acted on for the release (the configuration's
	// change, or what the last apply of it left), not for a repair alone:
	// what a canary, a promotion and rollout.paused apply to.
	released map[string]bool
}

// rank orders actions when two apply to one instance: the stronger one
// does what the weaker would (a restart sends the spec and starts).
var rank = map[action]int{actNone: 0, actUpdate: 1, actReload: 2, actStop: 3, actStart: 4, actRestart: 5, actRemove: 6}

// planActions decides what an apply does to each instance: what the
// configuration changed, what the last apply left failed or pending, the
// repair of what a refresh found (the strongest of the three: a spec sent
// to an instance found stopped starts it), and the removal
// of instances no longer in processes. Held instances get none.
func planActions(d *desired, p *prior, restart, reload string, held func(string) bool) planned {
	out := planned{actions: map[string]action{}, released: map[string]bool{}}
	for k, m := range d.models {
		if held(k) {
			continue
		}
		pm, ok := p.models[k]
		if !ok {
			out.actions[k], out.released[k] = startOrUpdate(d.running), true
			continue
		}
		a := freshAction(d, p, m.Group.ValueString(), restart, reload)
		if r := action(pm.Action.ValueString()); resumable(pm) && rank[r] > rank[a] && fits(r, d.running) {
			a = r
		}
		if a != actNone {
			out.released[k] = true
		}
		if fix := repair(pm, d.running); rank[fix] > rank[a] {
			a = fix
			out.drifted = append(out.drifted, k)
		}
		if a != actNone {
			out.actions[k] = a
		}
	}
	for k := range p.models {
		if _, ok := d.models[k]; !ok && !held(k) {
			out.actions[k], out.released[k] = actRemove, true
		}
	}
	slices.Sort(out.drifted)
	return out
}

// startOrUpdate is the action of an instance new to the service.
func startOrUpdate(running bool) action {
	if running {
		return actStart
	}
	return actUpdate
}

// freshAction is what the configuration's change asks of an instance of
// group gk.
func freshAction(d *desired, p *prior, gk, restart, reload string) action {
	switch {
	case d.running != p.running && d.running:
		return actStart
	case d.running != p.running:
		return actStop
	case d.running && restart != p.restart:
		return actRestart
	case d.running && reload != p.reload:
		return actReload
	}
	if pg, ok := p.groups[gk]; !ok || !sameSpec(pg, d.groups[gk]) {
		return actUpdate
	}
	return actNone
}

// sameSpec reports whether a and b send GSE the same spec and labels.
func sameSpec(a, b *group) bool {
	return reflect.DeepEqual(a.spec, b.spec) && (a.meta.Labels == nil) == (b.meta.Labels == nil) && maps.Equal(a.meta.Labels, b.meta.Labels)
}

// resumable reports whether the last apply left m's action to do.
func resumable(m instanceModel) bool {
	s := m.Status.ValueString()
	return m.Action.ValueString() != "" && (s == statusFailed || s == statusPending || s == statusAbsent)
}

// fits reports whether a resumed action still serves the run state asked.
func fits(a action, running bool) bool {
	if running {
		return a != actStop && a != actRemove
	}
	return a == actStop || a == actUpdate
}

// repair is the action that brings an instance back to the run state asked,
// from what the last refresh found; none when it is there, or unknown.
func repair(m instanceModel, running bool) action {
	switch s := m.Status.ValueString(); {
	case running && (s == statusStopped || s == statusAbsent):
		return actStart
	case !running && s == statusRunning:
		return actStop
	case !running && s == statusAbsent:
		return actUpdate
	}
	return actNone
}

// holdMatcher reports whether a key is held: equal to an entry of hold or
// starting with one.
func holdMatcher(hold []string) func(string) bool {
	return func(k string) bool {
		return slices.ContainsFunc(hold, func(h string) bool { return strings.HasPrefix(k, h) })
	}
}

// absentIn reports whether an instance is to be registered rather than
// updated: new, or found absent.
func absentIn(p *prior, key string) bool {
	m, ok := p.models[key]
	return !ok || m.Status.ValueString() == statusAbsent
}

// addFileActions adds what changed config files do to their instances:
// on_change, unless a stronger action already does it.
func (pl *planned) addFileActions(d *desired, p *prior, fs files, held func(string) bool) {
	for k, m := range d.models {
		if held(k) {
			continue
		}
		for _, f := range fs.changed(k, m.Group.ValueString(), configOf(p.models[k])) {
			pl.released[k] = true
			if a := onChangeAction(f.onChange, d.running); rank[a] > rank[pl.actions[k]] {
				pl.actions[k] = a
			}
		}
	}
}
