package service

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// warnFileDrift names the files a refresh found otherwise on an instance's
// host than last pushed (verifyFiles), whose push and on_change the plan
// holds for that instance alone: those whose config_files element is as
// the state has it, yet whose hash the instance's config does not hold. An
// instance the last apply left to finish is not named: its config is what
// that apply could not push.
func warnFileDrift(ctx context.Context, state tfsdk.State, planned types.Map, d *desired, p *prior, fs files, acts map[string]action, diags *diag.Diagnostics) {
	var was packedMap[configFilesSchema]
	if state.Raw.IsNull() || state.GetAttribute(ctx, path.Root("config_files"), &was).HasError() || was.IsNull() {
		return
	}
	before, now := was.Map(diags).Elements(), planned.Elements()
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(acts)) {
		m, kept := d.models[k]
		pm, ok := p.models[k]
		if !kept || !ok || resumable(pm) {
			continue
		}
		held := configOf(pm)
		for _, f := range fs.of(k, m.Group.ValueString()) {
			got, pushed := held[f.key]
			if !pushed || got == f.hash || before[f.key] == nil || !before[f.key].Equal(now[f.key]) {
				continue
			}
			found := "with other content"
			if got == fileMissing {
				found = "missing"
			}
			lines = append(lines, fmt.Sprintf("%s: config_files[%q] (%s) found %s, planned to push it and %s", k, f.key, health.FilePath(f.cf.Path, f.cf.Name), found, acts[k]))
		}
	}
	if len(lines) > 0 {
		diags.AddWarning(plumbing.Count(len(lines), "config file")+" drifted",
			"The refresh read these files on their hosts otherwise than last pushed; the plan pushes each to its instance alone:\n  "+strings.Join(lines, "\n  "))
	}
}
