package configfile

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// verify reads each host's file with one JOB script printing its SHA-256
// (or MISSING).
func (r *configFileResource) verify(ctx context.Context, m *configFileModel) (map[string]hostFile, error) {
	full := joinPath(m.Path.ValueString(), m.FileName.ValueString())
	script := "f='" + strings.ReplaceAll(full, "'", `'\''`) + "'\n" +
		"if [ -f \"$f\" ]; then sha256sum \"$f\" | cut -d' ' -f1; else echo MISSING; fi\n"
	var job, step int64
	ts := m.targets()
	results, err := r.run(ctx, m, ts, func(to gse.JobTargets) (int64, error) {
		var err error
		job, step, err = r.client.Job.ExecuteScript(ctx, m.scope(), gse.Script{Content: script, Account: m.Account.ValueString(), TimeoutSecs: 60}, to)
		return job, err
	})
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, res := range results {
		if res.OK() {
			ids = append(ids, res.HostID)
		}
	}
	logs := map[int64]string{}
	if len(ids) > 0 {
		if logs, err = r.client.Job.ScriptLogs(ctx, m.scope(), job, step, ids); err != nil {
			return nil, err
		}
	}
	want := m.SHA256.ValueString()
	out := map[string]hostFile{}
	for _, t := range ts {
		res, ok := results[t.key]
		got := strings.TrimSpace(logs[res.HostID])
		switch {
		case !ok || !res.OK():
			out[t.key] = hostFile{Status: types.StringValue(statusUnreachable), SHA256: types.StringNull()}
		case got == "MISSING":
			out[t.key] = hostFile{Status: types.StringValue(statusMissing), SHA256: types.StringNull()}
		case got == want:
			out[t.key] = hostFile{Status: types.StringValue(statusMatch), SHA256: types.StringValue(got)}
		default:
			out[t.key] = hostFile{Status: types.StringValue(statusDiffers), SHA256: types.StringValue(got)}
		}
	}
	return out, nil
}
