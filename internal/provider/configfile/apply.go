package configfile

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
)

// hostFile is one host's entry of host_status.
type hostFile struct {
	Status types.String `tfsdk:"status"`
	SHA256 types.String `tfsdk:"sha256"`
}

// settled reports whether the host holds the file with sum.
func (h hostFile) settled(sum string) bool {
	s := h.Status.ValueString()
	return (s == statusPushed || s == statusMatch) && h.SHA256.ValueString() == sum
}

func (m *configFileModel) scope() gse.JobScope {
	return gse.JobScope{Type: m.BkScopeType.ValueString(), ID: m.BkScopeID.ValueString()}
}

func (m *configFileModel) targets() []target {
	ids := make([]int64, len(m.BkHostIDs))
	for i, id := range m.BkHostIDs {
		ids[i] = id.ValueInt64()
	}
	return targetsOf(m.Hosts.Hosts(), ids)
}

func (m *configFileModel) statuses(ctx context.Context) (map[string]hostFile, diag.Diagnostics) {
	out := map[string]hostFile{}
	if m.HostStatus.IsNull() || m.HostStatus.IsUnknown() {
		return out, nil
	}
	return out, m.HostStatus.ElementsAs(ctx, &out, false)
}

// configText is the file's text from the configuration: content, or the
// write-only content_wo (only in the configuration); known is false when it
// is not known yet.
func configText(ctx context.Context, cfg tfsdk.Config) (text string, known bool, diags diag.Diagnostics) {
	for _, name := range []string{"content", "content_wo"} {
		var v types.String
		diags.Append(cfg.GetAttribute(ctx, path.Root(name), &v)...)
		if v.IsUnknown() {
			return "", false, diags
		}
		if !v.IsNull() {
			return v.ValueString(), true, diags
		}
	}
	return "", false, diags
}

// ModifyPlan plans sha256 from the content, and host_status unknown where
// the apply pushes: hosts whose file is not this content.
func (r *configFileResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy: the files stay
	}
	if r.client != nil && r.client.JobNeedsVerifiedUser() && req.State.Raw.IsNull() {
		resp.Diagnostics.AddWarning("JOB needs a verified user",
			"JOB's v3 APIs go through the bk-job gateway (job_gateway_url), whose user APIs refuse bk_username alone (1640001, \"the user indicated by bk_username is not verified\") "+
				"unless the gateway exempts the app. Set bk_token (BK_TOKEN) or a user's access_token (BK_ACCESS_TOKEN) in the provider block, or leave job_gateway_url unset to use ESB's jobv3.")
	}
	var plan, state configFileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	text, known, d := configText(ctx, req.Config)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.Path.IsUnknown() && !plan.FileName.IsUnknown() {
		plan.ID = types.StringValue(fmt.Sprintf("%s:%s:%s", plan.BkScopeType.ValueString(), plan.BkScopeID.ValueString(), joinPath(plan.Path.ValueString(), plan.FileName.ValueString())))
	}
	plan.SHA256 = types.StringUnknown()
	plan.HostStatus = types.MapUnknown(hostStatusType)
	// verify turned on reads the files at apply (the refresh before this
	// plan did not), so what they hold is known only then.
	verifyNow := plan.Verify.ValueBool() && !state.Verify.ValueBool()
	if known {
		want := sum(text)
		plan.SHA256 = types.StringValue(want)
		if prior, d := state.statuses(ctx); !d.HasError() && !req.State.Raw.IsNull() && !plan.Hosts.IsUnknown() && !verifyNow && allSettled(plan.targets(), prior, want) {
			plan.HostStatus = state.HostStatus
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// allSettled reports whether every host of ts, and only they, hold the file with sum.
func allSettled(ts []target, prior map[string]hostFile, sum string) bool {
	if len(ts) != len(prior) {
		return false
	}
	for _, t := range ts {
		if h, ok := prior[t.key]; !ok || !h.settled(sum) {
			return false
		}
	}
	return true
}

// joinPath is a directory and a file name, with the directory's separator.
func joinPath(dir, name string) string {
	if strings.Contains(dir, `\`) {
		return strings.TrimRight(dir, `\`) + `\` + name
	}
	return strings.TrimRight(dir, "/") + "/" + name
}

func (r *configFileResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan configFileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, cancel := plumbing.Deadline(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	r.push(ctx, req.Config, &plan, nil, &resp.Diagnostics)
	if plan.HostStatus.IsUnknown() {
		return // nothing was sent
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *configFileResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state configFileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	ctx, cancel := plumbing.Deadline(ctx, plan.Timeouts.Update, &resp.Diagnostics)
	defer cancel()
	prior, d := state.statuses(ctx)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Verify.ValueBool() && !state.Verify.ValueBool() {
		// verify was just turned on: read the files before deciding where to push.
		plan.SHA256 = state.SHA256
		read, err := r.verify(ctx, &plan)
		if err != nil {
			resp.Diagnostics.AddError("Could not read "+plan.ID.ValueString()+" on its hosts", err.Error()+"\n\n"+plumbing.CallAdvice(err))
			return
		}
		prior = read
	}
	r.push(ctx, req.Config, &plan, prior, &resp.Diagnostics)
	if plan.HostStatus.IsUnknown() {
		plan.HostStatus = state.HostStatus // nothing was sent
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// push sends the file to the hosts of plan that do not hold it (prior:
// their last known files) in one job, and sets sha256 and host_status:
// pushed where the job succeeded, unreachable where it did not, as before
// elsewhere. host_status stays unknown when nothing could be sent.
func (r *configFileResource) push(ctx context.Context, cfg tfsdk.Config, plan *configFileModel, prior map[string]hostFile, diags *diag.Diagnostics) {
	text, _, d := configText(ctx, cfg)
	if diags.Append(d...); diags.HasError() {
		return
	}
	want := sum(text) // once: the content may be megabytes, the hosts thousands
	plan.SHA256 = types.StringValue(want)
	ts := plan.targets()
	var send []target
	for _, t := range ts {
		if h, ok := prior[t.key]; !ok || !h.settled(want) {
			send = append(send, t)
		}
	}
	status := map[string]hostFile{}
	for _, t := range ts {
		if h, ok := prior[t.key]; ok {
			status[t.key] = h
		}
	}
	if len(send) > 0 {
		results, err := r.pushInBatches(ctx, plan, send, []byte(text))
		for _, t := range send {
			res, ok := results[t.key]
			switch {
			case ok && res.OK():
				status[t.key] = hostFile{Status: types.StringValue(statusPushed), SHA256: plan.SHA256}
			case ok:
				prev := status[t.key]
				if prev.SHA256.IsUnknown() {
					prev.SHA256 = types.StringNull()
				}
				status[t.key] = hostFile{Status: types.StringValue(statusUnreachable), SHA256: prev.SHA256}
			}
		}
		if err != nil {
			diags.AddError("Could not push "+plan.ID.ValueString(), err.Error()+"\n\n"+plumbing.CallAdvice(err)+jobCredentialAdvice(err)+
				"\n\nhost_status says which hosts hold the file; fix the cause (start the GSE agent), then apply again: it pushes only where the file is not.")
			if len(results) == 0 {
				return // nothing was sent
			}
		}
	}
	m, d := types.MapValueFrom(ctx, hostStatusType, status)
	diags.Append(d...)
	plan.HostStatus = m
}

// pushInBatches pushes content to ts, one JOB job per rollout batch (one
// for all without a rollout), and returns each host's result by key; the
// error names the hosts that failed and those left untouched.
func (r *configFileResource) pushInBatches(ctx context.Context, plan *configFileModel, ts []target, content []byte) (map[string]gse.JobHostTask, error) {
	if needIDs(ts) {
		// Once for every batch: the host ids come from one CMDB listing.
		if err := r.resolveAll(ctx, plan, ts); err != nil {
			return nil, err
		}
	}
	results := map[string]gse.JobHostTask{}
	file := gse.ConfigFile{Path: plan.Path.ValueString(), Name: plan.FileName.ValueString(), Account: plan.Account.ValueString(), Content: content}
	st := rollout.Step[target]{What: "push", Target: plan.ID, Place: target.place, Settle: settlePush, Run: func(ctx context.Context, batch []target) error {
		res, err := r.run(ctx, plan, batch, func(to gse.JobTargets) (int64, error) {
			return r.client.Job.PushConfigFile(ctx, plan.scope(), file, to)
		})
		if err != nil {
			return err
		}
		pe := &pushError{file: plan.ID, total: len(batch)}
		for _, t := range batch {
			res := res[t.key]
			results[t.key] = res
			if !res.OK() {
				pe.failures = append(pe.failures, rollout.Failure[target]{Target: t, Reason: fmt.Sprintf("GSE code %d: JOB host status%s", res.Status, hostAdvice(res.Status))})
			}
		}
		if len(pe.failures) > 0 {
			return pe
		}
		return nil
	}}
	_, err := rollout.Run(ctx, plan.Rollout.Expand(), ts, st)
	return results, err
}

// pushError names the hosts of a push job that did not get the file, as
// the configuration gives them.
type pushError struct {
	file     fmt.Stringer // the resource's id
	total    int
	failures []rollout.Failure[target]
}

func (e *pushError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "push_config_file of %s failed on %d of %d hosts:", e.file, len(e.failures), e.total)
	for _, f := range e.failures {
		b.WriteString("\n  - " + f.String())
	}
	return b.String()
}

// settlePush reads a push's error for the rollout: a *pushError names the
// hosts that failed; any other error is the job's as a whole.
func settlePush(_ []target, err error) ([]rollout.Failure[target], bool) {
	var pe *pushError
	if errors.As(err, &pe) {
		return pe.failures, true
	}
	return nil, false
}

// resolveAll fills the host ids JOB needs (resolve), in the plan's business.
func (r *configFileResource) resolveAll(ctx context.Context, plan *configFileModel, ts []target) error {
	biz, err := strconv.ParseInt(plan.BkScopeID.ValueString(), 10, 64)
	if err != nil || plan.BkScopeType.ValueString() != "biz" {
		return fmt.Errorf("hosts given by agent_id or an IPv6 address need their CMDB host id, which is looked up in a business: use bk_scope_type = \"biz\", or bk_host_ids")
	}
	return resolve(ctx, r.client, biz, ts)
}

// run starts one JOB job on ts with start, waits for it, and returns each
// host's result by key.
func (r *configFileResource) run(ctx context.Context, plan *configFileModel, ts []target, start func(gse.JobTargets) (int64, error)) (map[string]gse.JobHostTask, error) {
	byID := needIDs(ts)
	if byID {
		if err := r.resolveAll(ctx, plan, ts); err != nil {
			return nil, err
		}
	}
	id, err := start(jobTargets(ts, byID))
	if err != nil {
		return nil, err
	}
	st, err := r.client.Job.WaitJob(ctx, plan.scope(), id)
	if err != nil {
		return nil, err
	}
	byHost := map[string]gse.JobHostTask{}
	for _, step := range st.Steps {
		for _, h := range step.Hosts {
			byHost[strconv.FormatInt(h.HostID, 10)] = h
			byHost[gse.Host{IP: h.IP, BkCloudID: h.BkCloudID}.Address()] = h
		}
	}
	out := map[string]gse.JobHostTask{}
	for _, t := range ts {
		if h, ok := byHost[strconv.FormatInt(t.hostID, 10)]; ok && t.hostID != 0 {
			out[t.key] = h
		} else if h, ok := byHost[t.ip.Host().Address()]; ok && !byID {
			out[t.key] = h
		}
	}
	return out, nil
}

// hostAdvice says what a JOB host status means.
func hostAdvice(status int) string {
	switch status {
	case gse.JobHostAgentDown, gse.JobHostNoAgent:
		return " (the GSE agent is down or not installed)"
	case 0:
		return " (no result)"
	}
	return ""
}

// jobCredentialAdvice adds, for a refusal of the user through the bk-job
// gateway, that JOB's v3 APIs need a verified user there.
func jobCredentialAdvice(err error) string {
	if gse.KindOf(err) == gse.KindAuth && strings.Contains(err.Error(), "bk_username is not verified") {
		return " JOB's v3 APIs need a verified user on the bk-job gateway: set bk_token or a user's access_token."
	}
	return ""
}

func (r *configFileResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state configFileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !state.Verify.ValueBool() {
		return
	}
	ctx, cancel := plumbing.Deadline(ctx, state.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	status, err := r.verify(ctx, &state)
	if err != nil {
		resp.Diagnostics.AddError("Could not read "+state.ID.ValueString()+" on its hosts", err.Error()+"\n\n"+plumbing.CallAdvice(err))
		return
	}
	m, d := types.MapValueFrom(ctx, hostStatusType, status)
	resp.Diagnostics.Append(d...)
	state.HostStatus = m
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

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

// Delete leaves the files on the hosts: a running process may still read them.
func (r *configFileResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}
