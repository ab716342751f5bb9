package service

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// fileMissing is what an instance's config records for a file a refresh
// found missing on its host: no SHA-256 equals it, so the next plan pushes
// the file.
const fileMissing = "missing"

// fileRead is one read of a file on hosts: every instance of s that
// holds, by config, a file of config_files at full with verify on.
type fileRead struct {
	full, account string
	targets       []health.Target   // Key is the instance's key
	fileOf        map[string]string // the file's key in config_files, by instance key
}

// verifyFiles reads back the files of s's config_files with verify on, each
// distinct path once on the hosts of its instances (health.ReadFile), and
// records in each instance's config what its host holds: the file's
// SHA-256, or fileMissing. A host JOB did not reach keeps what config says.
// None is read when no file has verify on; a read that fails fails the
// refresh, naming the files and hosts.
func (r *serviceResource) verifyFiles(ctx context.Context, s *serviceModel, models map[string]instanceModel, diags *diag.Diagnostics) bool {
	fs := expandFiles(s.ConfigFiles.Map(diags), packedMap[configFilesSchema]{}, diags)
	if len(fs.byKey) == 0 || diags.HasError() {
		return !diags.HasError()
	}
	d := expandDesired(ctx, s, false, diags)
	if diags.HasError() {
		return false
	}
	reads := fileReads(fs, filled(models, d.models))
	if len(reads) == 0 {
		return true
	}
	scope := gse.BizScope(s.BkBizID.ValueInt64())
	found, failed, err := readAll(ctx, len(reads), func(ctx context.Context, i int) (map[string]health.FileState, error) {
		return health.ReadFile(ctx, r.client, scope, reads[i].full, reads[i].account, reads[i].targets)
	})
	if err != nil {
		addReadError(diags, reads[failed], err)
		return false
	}
	for i, rd := range reads {
		for _, tg := range rd.targets {
			st := found[i][tg.Key]
			if !st.Reached {
				continue
			}
			cfg := configOf(models[tg.Key])
			cfg[rd.fileOf[tg.Key]] = recorded(st)
			m := models[tg.Key]
			m.Config = configValue(cfg)
			models[tg.Key] = m
		}
	}
	return true
}

// recorded is what config records of what a read found on a host.
func recorded(st health.FileState) string {
	if st.Missing {
		return fileMissing
	}
	return st.SHA256
}

// fileReads are the reads verifyFiles runs, by path and account: for each
// instance, each of its files with verify on that its config says was
// pushed (a file never pushed is pushed by the next apply anyway).
func fileReads(fs files, models map[string]instanceModel) []*fileRead {
	byPath := map[string]*fileRead{}
	for _, k := range slices.Sorted(maps.Keys(models)) {
		m := models[k]
		held := configOf(m)
		for _, f := range fs.of(k, m.Group.ValueString()) {
			if _, pushed := held[f.key]; !f.verify || !pushed {
				continue
			}
			full := health.FilePath(f.cf.Path, f.cf.Name)
			id := full + "\x00" + f.cf.Account
			rd := byPath[id]
			if rd == nil {
				rd = &fileRead{full: full, account: f.cf.Account, fileOf: map[string]string{}}
				byPath[id] = rd
			}
			rd.targets = append(rd.targets, health.Target{Key: k, Host: m.Host.Expand(), BkHostID: m.BkHostID.ValueInt64()})
			rd.fileOf[k] = f.key
		}
	}
	out := make([]*fileRead, 0, len(byPath))
	for _, id := range slices.Sorted(maps.Keys(byPath)) {
		out = append(out, byPath[id])
	}
	return out
}

// addReadError fails the refresh for read, which failed: the files, the
// hosts where it failed and what they printed, and what to do.
func addReadError(diags *diag.Diagnostics, read *fileRead, err error) {
	var re *health.ReadError
	ks := slices.Compact(slices.Sorted(maps.Values(read.fileOf)))
	keys := fmt.Sprintf("config_files[%q]", ks[0])
	if len(ks) > 1 {
		keys += fmt.Sprintf(" and %d more of %s", len(ks)-1, read.full)
	}
	advice := plumbing.CallAdvice(err)
	if errors.As(err, &re) {
		advice = re.Advice()
	}
	diags.AddError("Could not read "+keys+" on their hosts", strings.TrimSpace(err.Error()+"\n\n"+advice))
}
