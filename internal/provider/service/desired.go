package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
)

// group is one element of processes in the client's terms.
type group struct {
	key      string
	meta     gse.Meta
	spec     *gse.Spec
	priority int64
	hosts    []hosts.Model
}

// desired is what a configuration (or a plan) asks of the service.
type desired struct {
	groups  map[string]*group
	models  map[string]instanceModel // every instance, by key, its inputs filled
	running bool
	given   bool // instances was given: its elements are kept as they are
}

// expandDesired reads processes and, when given is true, the instances the
// configuration gave, whose keys must be those processes makes.
func expandDesired(ctx context.Context, m *serviceModel, given bool, diags *diag.Diagnostics) *desired {
	var gm map[string]groupModel
	if diags.Append(m.Processes.Map(diags).ElementsAs(ctx, &gm, false)...); diags.HasError() {
		return nil
	}
	d := &desired{groups: map[string]*group{}, models: map[string]instanceModel{}, running: m.Running.IsNull() || m.Running.ValueBool(), given: given}
	for _, key := range slices.Sorted(maps.Keys(gm)) {
		g := gm[key]
		meta, md := g.Meta.Expand(ctx)
		diags.Append(md...)
		hs := g.hostsOf()
		gr := &group{key: key, meta: meta, spec: g.Spec.Expand(), priority: g.Priority.ValueInt64(), hosts: make([]hosts.Model, len(hs))}
		d.groups[key] = gr
		for i, h := range hs {
			gr.hosts[i] = h.Model
			d.models[instanceKey(meta, h.Model)] = h.facts(newInstance(key, meta.Name, h.Model, types.Int64Value(g.Priority.ValueInt64())))
		}
	}
	if given && !diags.HasError() {
		d.mergeGiven(m.Instances.Map(diags), diags)
	}
	return d
}

// newInstance is an instance of group on h with nothing known of it from
// CMDB.
func newInstance(group, name string, h hosts.Model, priority types.Int64) instanceModel {
	return instanceModel{Group: types.StringValue(group), Name: types.StringValue(name), Host: &h,
		BkHostID: types.Int64Null(), BkProcessID: types.Int64Null(), BkSetID: types.Int64Null(), BkModuleID: types.Int64Null(),
		ServiceInstanceID: types.Int64Null(), LocalInstID: types.Int64Null(), Priority: priority,
		BindInfo: types.ListNull(bindInfoType), Config: types.MapNull(types.StringType)}
}

// facts is m with what h says of it from CMDB.
func (h groupHost) facts(m instanceModel) instanceModel {
	return m.factsFrom(instanceModel{BkHostID: h.BkHostID, BkSetID: h.BkSetID, BkModuleID: h.BkModuleID, BindInfo: h.BindInfo})
}

// The CMDB facts of an instance (bk_host_id, bk_set_id, bk_module_id,
// bind_info) come with processes' hosts. instances holds them only where it
// was given: computed, they would make plan and state a third larger, and
// the processes beside them in every plan and state say them again.

// factsFrom is m with each fact it leaves null or unknown taken from from.
func (m instanceModel) factsFrom(from instanceModel) instanceModel {
	for _, f := range []struct{ from, to *types.Int64 }{{&from.BkHostID, &m.BkHostID}, {&from.BkSetID, &m.BkSetID}, {&from.BkModuleID, &m.BkModuleID}} {
		if (f.to.IsNull() || f.to.IsUnknown()) && !f.from.IsNull() && !f.from.IsUnknown() {
			*f.to = *f.from
		}
	}
	if (m.BindInfo.IsNull() || m.BindInfo.IsUnknown()) && !from.BindInfo.IsNull() && !from.BindInfo.IsUnknown() {
		m.BindInfo = from.BindInfo
	}
	return m
}

// withoutFacts is m as instances holds it when it was not given.
func (m instanceModel) withoutFacts() instanceModel {
	m.BkHostID, m.BkSetID, m.BkModuleID, m.BindInfo = types.Int64Null(), types.Int64Null(), types.Int64Null(), types.ListNull(bindInfoType)
	return m
}

// filled is models, each with its facts from made (factsFrom).
func filled(models, made map[string]instanceModel) map[string]instanceModel {
	out := make(map[string]instanceModel, len(models))
	for k, m := range models {
		out[k] = m.factsFrom(made[k])
	}
	return out
}

// mergeGiven takes the instances the configuration gave in place of those
// processes makes: the same keys, each from the group processes names.
func (d *desired) mergeGiven(v types.Map, diags *diag.Diagnostics) {
	given := instancesOf(v)
	var extra []string
	for _, k := range slices.Sorted(maps.Keys(given)) {
		made, ok := d.models[k]
		if !ok {
			extra = append(extra, k)
			continue
		}
		in := given[k]
		if !in.Group.IsNull() && !in.Group.IsUnknown() && in.Group.ValueString() != made.Group.ValueString() {
			diags.AddAttributeError(path.Root("instances").AtMapKey(k).AtName("group"), "Instance of another group",
				fmt.Sprintf("instances[%q] names group %q, but processes holds it in %q. Pass instances and processes of the same gse_cmdb_processes.", k, in.Group.ValueString(), made.Group.ValueString()))
		}
		d.models[k] = in.withDefaults(made)
	}
	var missing []string
	for k := range d.models {
		if _, ok := given[k]; !ok {
			missing = append(missing, k)
		}
	}
	slices.Sort(missing)
	if len(extra)+len(missing) > 0 {
		diags.AddAttributeError(path.Root("instances"), "instances do not match processes",
			fmt.Sprintf("instances must hold exactly one element per process and host of processes.%s%s\n\nPass instances and groups of the same gse_cmdb_processes (with_instances = true), or leave instances unset.",
				listed("\n\nNot in processes: ", extra), listed("\n\nMissing from instances: ", missing)))
	}
}

// withDefaults is a given instance with what it leaves null taken from made.
func (in instanceModel) withDefaults(made instanceModel) instanceModel {
	in.Group, in.Name = made.Group, made.Name
	if in.Host == nil {
		in.Host = made.Host
	}
	if in.Priority.IsNull() || in.Priority.IsUnknown() {
		in.Priority = made.Priority
	}
	if in.BindInfo.IsUnknown() {
		in.BindInfo = types.ListNull(bindInfoType)
	}
	return in
}

// listed is "" for no keys, else prefix and the keys, at most ten.
func listed(prefix string, keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	more := ""
	if len(keys) > 10 {
		keys, more = keys[:10], fmt.Sprintf(" and %d more", len(keys)-10)
	}
	return prefix + strings.Join(keys, ", ") + more
}

// instanceKey is an instance's key, as gse_cmdb_processes.instances keys it.
func instanceKey(meta gse.Meta, h hosts.Model) string {
	return meta.Namespace + "/" + meta.Name + "@" + h.StatusKey()
}

// keyMeta is the process an instance key names: namespace and name hold no
// "/" or "@" (plumbing.MetaName).
func keyMeta(key string) gse.Meta {
	ns, rest, _ := strings.Cut(key, "/")
	name, _, _ := strings.Cut(rest, "@")
	return gse.Meta{Namespace: ns, Name: name}
}

// revision digests what the configuration asks of the service: the
// processes as sent (their specs, hosts and priorities), running, the
// triggers and the config files (their content by its hash). Hosts count by
// identity, in any order.
func revision(d *desired, restart, reload types.Map, fs files) string {
	type groupDigest struct {
		Meta     gse.Meta
		Spec     *gse.Spec
		Priority int64
		Hosts    []string
	}
	gs := map[string]groupDigest{}
	for k, g := range d.groups {
		hs := make([]string, len(g.hosts))
		for i, h := range g.hosts {
			hs[i] = h.Expand().Key()
		}
		slices.Sort(hs)
		gs[k] = groupDigest{g.meta, g.spec, g.priority, hs}
	}
	type fileDigest struct{ Instance, Group, Path, Name, Account, Hash, OnChange string }
	// Files are digested only when there are some, so that a service
	// without any keeps the revision it had before files counted.
	var fds map[string]fileDigest
	if len(fs.byKey) > 0 {
		fds = make(map[string]fileDigest, len(fs.byKey))
	}
	for k, f := range fs.byKey {
		fds[k] = fileDigest{f.instance, f.group, f.cf.Path, f.cf.Name, f.cf.Account, f.hash, f.onChange}
	}
	b, _ := json.Marshal(struct {
		Groups          map[string]groupDigest
		Running         bool
		Restart, Reload string
		Files           map[string]fileDigest `json:",omitempty"`
	}{gs, d.running, restart.String(), reload.String(), fds})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
