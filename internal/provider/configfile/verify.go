package configfile

import (
	"context"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
)

// verify reads each host's file with one JOB script (health.ReadScript). A
// host whose agent JOB did not reach is unreachable; one whose read failed,
// or printed neither a SHA-256 nor MISSING, is a *health.ReadError naming it
// and what it printed.
func (r *configFileResource) verify(ctx context.Context, m *configFileModel) (map[string]hostFile, error) {
	sc := health.ReadScript(m.full())
	sc.Account, sc.TimeoutSecs = m.Account.ValueString(), 60
	var run *gse.ScriptRun
	ts := m.targets()
	results, err := r.run(ctx, m, ts, func(to gse.JobTargets) (waitFor, error) {
		var err error
		run, err = r.client.Job.ExecuteScript(ctx, m.scope(), sc, to)
		return func(ctx context.Context) (*gse.JobStatus, error) { return r.client.Job.WaitScript(ctx, m.scope(), run) }, err
	})
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, res := range results {
		if health.NeedsLog(res) {
			ids = append(ids, res.HostID)
		}
	}
	logs := map[int64]string{}
	if len(ids) > 0 {
		if logs, err = r.client.Job.ScriptLogs(ctx, m.scope(), run, ids); err != nil {
			return nil, err
		}
	}
	want := m.SHA256.ValueString()
	out := map[string]hostFile{}
	re := &health.ReadError{File: m.full(), Account: m.Account.ValueString(), Total: len(ts)}
	for _, t := range ts {
		res, ok := results[t.key]
		st, why := health.JudgeRead(res, ok, logs[res.HostID])
		switch {
		case why != "":
			re.Add(t.String(), why, logs[res.HostID])
		case !st.Reached:
			out[t.key] = hostFile{Status: types.StringValue(statusUnreachable), SHA256: types.StringNull()}
		case st.Missing:
			out[t.key] = hostFile{Status: types.StringValue(statusMissing), SHA256: types.StringNull()}
		case st.SHA256 == want:
			out[t.key] = hostFile{Status: types.StringValue(statusMatch), SHA256: types.StringValue(st.SHA256)}
		default:
			out[t.key] = hostFile{Status: types.StringValue(statusDiffers), SHA256: types.StringValue(st.SHA256)}
		}
	}
	if re.Failed() {
		return nil, re
	}
	return out, nil
}

// keepAgreeing is read with the prior entry of each host where the read
// found what the state says (pushed or match, with this sum): a refresh
// after a push reads back what the apply wrote.
func keepAgreeing(read, prior map[string]hostFile, sum string) {
	held := byHost(prior)
	for k, h := range read {
		if p, ok := held[hostIdentity(k)]; ok && h.Status.ValueString() == statusMatch && p.settled(sum) {
			read[k] = p
		}
	}
}
