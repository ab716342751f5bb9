package service

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// file is one element of config_files in the client's terms.
type file struct {
	key             string
	instance, group string
	cf              gse.ConfigFile
	hash            string // the SHA-256 of its content, as instances' config holds it
	onChange        string
	verify          bool // each refresh reads it back (verifyFiles)
}

// files are config_files by key, and each instance's and group's in key
// order: a release of per-instance files asks for an instance's files once
// per instance, which a scan of every file made quadratic.
type files struct {
	byKey      map[string]*file
	byInstance map[string][]*file
	byGroup    map[string][]*file
}

// expandFiles reads config_files; the content of content_wo, write-only and
// so null in plans and states, from config (the configuration's value),
// decoded only when some file has no content: it is the whole map again.
func expandFiles(v types.Map, config packedMap[configFilesSchema], diags *diag.Diagnostics) files {
	var cm map[string]configFileModel
	fm := elementsOf(v, configFileOf)
	out := files{byKey: map[string]*file{}, byInstance: map[string][]*file{}, byGroup: map[string][]*file{}}
	for _, k := range slices.Sorted(maps.Keys(fm)) {
		f := fm[k]
		content := f.Content.ValueString()
		if f.Content.IsNull() {
			if cm == nil {
				cm = writeOnlyContents(config, diags)
			}
			content = cm[k].ContentWO.ValueString()
		}
		sum := sha256.Sum256([]byte(content))
		fl := &file{key: k, instance: f.Instance.ValueString(), group: f.Group.ValueString(), hash: hex.EncodeToString(sum[:]),
			onChange: cmp.Or(f.OnChange.ValueString(), "reload"),
			verify:   f.Verify.ValueBool(),
			cf:       gse.ConfigFile{Path: f.Path.ValueString(), Name: f.FileName.ValueString(), Account: cmp.Or(f.Account.ValueString(), "root"), Content: []byte(content)}}
		out.byKey[k] = fl
		if fl.instance != "" {
			out.byInstance[fl.instance] = append(out.byInstance[fl.instance], fl)
		} else {
			out.byGroup[fl.group] = append(out.byGroup[fl.group], fl)
		}
	}
	return out
}

// writeOnlyContents are the configuration's files, content_wo included;
// empty, not nil, when it holds none.
func writeOnlyContents(config packedMap[configFilesSchema], diags *diag.Diagnostics) map[string]configFileModel {
	if c := config.Map(diags); !c.IsNull() && !c.IsUnknown() {
		return elementsOf(c, configFileOf)
	}
	return map[string]configFileModel{}
}

// of are the files of instance k of group g.
func (fs files) of(k, g string) []*file {
	own, shared := fs.byInstance[k], fs.byGroup[g]
	if len(shared) == 0 {
		return own
	}
	out := append(slices.Clone(own), shared...)
	slices.SortFunc(out, func(a, b *file) int { return strings.Compare(a.key, b.key) })
	return out
}

// want is the config an instance holds once its files are pushed.
func (fs files) want(k, g string) map[string]string {
	out := map[string]string{}
	for _, f := range fs.of(k, g) {
		out[f.key] = f.hash
	}
	return out
}

// changed are the files of instance k whose content its host has not got
// for it: all of them for an instance new to the state.
func (fs files) changed(k, g string, prior map[string]string) []*file {
	var out []*file
	for _, f := range fs.of(k, g) {
		if prior[f.key] != f.hash {
			out = append(out, f)
		}
	}
	return out
}

// onChangeAction is what a changed file does to an instance.
func onChangeAction(onChange string, running bool) action {
	switch {
	case !running || onChange == "none":
		return actUpdate
	case onChange == "restart":
		return actRestart
	}
	return actReload
}

// checkFiles fails the plan for a file of no instance or group, and for two
// files writing one path on one host.
func checkFiles(fs files, d *desired, diags *diag.Diagnostics) {
	writer := map[string]string{}
	ofGroup := map[string][]string{} // the instance keys of each group, in order
	for _, k := range slices.Sorted(maps.Keys(d.models)) {
		g := d.models[k].Group.ValueString()
		ofGroup[g] = append(ofGroup[g], k)
	}
	for _, key := range slices.Sorted(maps.Keys(fs.byKey)) {
		f := fs.byKey[key]
		at := path.Root("config_files").AtMapKey(key)
		switch _, isGroup := d.groups[f.group]; {
		case f.instance != "" && !hasKey(d.models, f.instance):
			diags.AddAttributeError(at.AtName("instance"), "No such instance", fmt.Sprintf("config_files[%q].instance %q is not the key of an instance of processes.", key, f.instance))
			continue
		case f.instance == "" && !isGroup:
			diags.AddAttributeError(at.AtName("group"), "No such group", fmt.Sprintf("config_files[%q].group %q is not a key of processes.", key, f.group))
			continue
		}
		keys := ofGroup[f.group]
		if f.instance != "" {
			keys = []string{f.instance}
		}
		for _, k := range keys {
			m := d.models[k]
			spot := m.Host.StatusKey() + " " + f.cf.Path + "/" + f.cf.Name
			if other, ok := writer[spot]; ok && other != key {
				diags.AddAttributeError(at, "Two files write one path", fmt.Sprintf("config_files[%q] and config_files[%q] both write %s/%s on %s: give each its own path or file_name.",
					other, key, f.cf.Path, f.cf.Name, m.Host.StatusKey()))
			}
			writer[spot] = key
		}
	}
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// configValue is hashes as an instance's config.
func configValue(hashes map[string]string) types.Map {
	vals := make(map[string]types.String, len(hashes))
	for k, h := range hashes {
		vals[k] = types.StringValue(h)
	}
	v, _ := types.MapValueFrom(context.Background(), types.StringType, vals)
	return v
}

// configOf is an instance's config as hashes; none when null.
func configOf(m instanceModel) map[string]string {
	out := map[string]string{}
	if m.Config.IsNull() || m.Config.IsUnknown() {
		return out
	}
	for k, v := range m.Config.Elements() {
		if s, ok := v.(types.String); ok {
			out[k] = s.ValueString()
		}
	}
	return out
}

// writeOnlyCleared is v with every content_wo null, as Terraform takes a
// plan: the framework nulls the write-only attributes of what it plans
// (NullifyWriteOnlyAttributes), but config_files is one packed string to it.
func writeOnlyCleared(ctx context.Context, v packedMap[configFilesSchema], diags *diag.Diagnostics) packedMap[configFilesSchema] {
	if v.IsNull() || v.IsUnknown() {
		return v
	}
	els := v.Map(diags).Elements()
	cleared := false
	for k, el := range els {
		o, ok := el.(types.Object)
		if !ok || o.IsNull() || o.IsUnknown() || o.Attributes()["content_wo"].IsNull() {
			continue
		}
		attrs := o.Attributes()
		attrs["content_wo"] = types.StringNull()
		obj, d := types.ObjectValue(o.AttributeTypes(ctx), attrs)
		diags.Append(d...)
		els[k], cleared = obj, true
	}
	if !cleared {
		return v
	}
	m, d := types.MapValue(v.Map(diags).ElementType(ctx), els)
	diags.Append(d...)
	out, err := packMap[configFilesSchema](m)
	if err != nil {
		diags.AddError("Could not plan config_files", err.Error())
	}
	return out
}
