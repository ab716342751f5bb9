package configfile

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

var (
	_ resource.ResourceWithConfigure        = (*configFileResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*configFileResource)(nil)
	_ resource.ResourceWithConfigValidators = (*configFileResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*configFileResource)(nil)
)

// configFileResource is a text file on a set of hosts, pushed with JOB's
// push_config_file.
type configFileResource struct{ client *gse.Client }

// NewResource is gse_config_file.
func NewResource() resource.Resource { return &configFileResource{} }

func (r *configFileResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_config_file"
}

func (r *configFileResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = plumbing.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *configFileResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = configFileSchema(ctx)
}

func (r *configFileResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("hosts"), path.MatchRoot("bk_host_ids")),
		resourcevalidator.ExactlyOneOf(path.MatchRoot("content"), path.MatchRoot("content_wo")),
		resourcevalidator.RequiredTogether(path.MatchRoot("content_wo"), path.MatchRoot("content_wo_version")),
	}
}

// maxContent is the largest file pushed: JOB's JSON reader refuses a
// string over 20,000,000 characters (Jackson's StreamReadConstraints
// maxStringLength; 1240003 Bad Request), and the content goes as one
// Base64 string, 4 characters for every 3 bytes.
const maxContent = 20_000_000 / 4 * 3

// maxTargets is JOB's limit on file tasks, files × targets
// (job.execute.limit.file-task.max-tasks; 1244021).
const maxTargets = 100000

// ValidateConfig refuses what JOB would: an empty file (push_config_file
// refuses content whose Base64 is blank, so only empty content, with
// 1241002 and nothing named), one too large to send, a blank file name,
// more hosts than one push may have.
func (r *configFileResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	for _, name := range []string{"content", "content_wo"} {
		var v types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(name), &v)...)
		switch {
		case v.IsNull() || v.IsUnknown():
		case v.ValueString() == "":
			resp.Diagnostics.AddAttributeError(path.Root(name), "Empty configuration file",
				name+" is empty, and JOB cannot push an empty file (push_config_file refuses empty content with 1241002). Put at least one character in it (whitespace will do), or remove the resource.")
		case len(v.ValueString()) > maxContent:
			resp.Diagnostics.AddAttributeError(path.Root(name), "Configuration file too large",
				fmt.Sprintf("%s holds %d bytes; push_config_file sends a file as one Base64 string (4 characters for every 3 bytes), and JOB's JSON reader refuses a string over 20,000,000 characters (1240003 Bad Request): at most %d bytes. "+
					"Ship large or binary files with JOB's fast_transfer_file from an artifact store instead.", name, len(v.ValueString()), maxContent))
		}
	}
	validateFileName(ctx, req, resp)
	var ids types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("bk_host_ids"), &ids)...)
	if n := len(ids.Elements()); n > maxTargets {
		resp.Diagnostics.AddAttributeError(path.Root("bk_host_ids"), "Too many hosts for one push",
			fmt.Sprintf("bk_host_ids lists %d hosts; JOB runs at most %d file tasks (files × hosts) in one job (1244021). Split the hosts over several resources.", n, maxTargets))
	}
}

// validateFileName refuses a file name JOB refuses (blank: 1241002) or
// trims to "." or "..", and warns of one JOB trims.
func validateFileName(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var v types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("file_name"), &v)...)
	if v.IsNull() || v.IsUnknown() {
		return
	}
	name, trimmed := v.ValueString(), health.JobFileName(v.ValueString())
	switch {
	case strings.TrimSpace(name) == "" || trimmed == "." || trimmed == "..":
		resp.Diagnostics.AddAttributeError(path.Root("file_name"), "Invalid file name",
			fmt.Sprintf("file_name %q is blank, . or .. once JOB trims the spaces around it (push_config_file refuses a blank name with 1241002): name a file.", name))
	case trimmed != name:
		resp.Diagnostics.AddAttributeWarning(path.Root("file_name"), "File name trimmed by JOB",
			fmt.Sprintf("JOB trims the spaces and control characters around a file name: file_name %q is written, and read by verify, as %q. Write it so to silence this warning.", name, trimmed))
	}
}

// ModifyPlan plans sha256 from the content, host_status unknown where the
// apply pushes (hosts whose file is not this content), and push_count one
// more when a push is planned (unknown when only the apply can tell).
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
		plan.ID = types.StringValue(fmt.Sprintf("%s:%s:%s", plan.BkScopeType.ValueString(), plan.BkScopeID.ValueString(), plan.full()))
	}
	plan.SHA256 = types.StringUnknown()
	plan.HostStatus = types.MapUnknown(hostStatusType)
	plan.PushCount = types.Int64Unknown()
	if req.State.Raw.IsNull() {
		plan.PushCount = types.Int64Value(1) // a create pushes
	}
	// verify turned on reads the files at apply (the refresh before this
	// plan did not), so what they hold is known only then.
	verifyNow := plan.Verify.ValueBool() && !state.Verify.ValueBool()
	if known {
		want := sum(text)
		plan.SHA256 = types.StringValue(want)
		prior, d := state.statuses(ctx)
		switch {
		case d.HasError() || req.State.Raw.IsNull() || plan.Hosts.IsUnknown() || verifyNow:
		case allSettled(plan.targets(), prior, want):
			plan.HostStatus, plan.PushCount = state.HostStatus, state.PushCount
		default:
			plan.PushCount = types.Int64Value(state.PushCount.ValueInt64() + 1)
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (r *configFileResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan configFileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, cancel := plumbing.Deadline(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	r.push(ctx, req.Config, &plan, nil, types.Int64Null(), &resp.Diagnostics)
	if plan.HostStatus.IsUnknown() {
		return // nothing was sent
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
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
		resp.Diagnostics.AddError("Could not read "+state.ID.ValueString()+" on its hosts", err.Error()+"\n\n"+verifyAdvice(err))
		return
	}
	prior, d := state.statuses(ctx)
	resp.Diagnostics.Append(d...)
	keepAgreeing(status, prior, state.SHA256.ValueString())
	m, d := types.MapValueFrom(ctx, hostStatusType, status)
	resp.Diagnostics.Append(d...)
	state.HostStatus = m
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *configFileResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state configFileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if !resp.Diagnostics.HasError() && !plan.HostStatus.IsUnknown() {
		// The plan found every host holding this content (ModifyPlan): nothing
		// to push, and host_status stays as planned, under the keys the state
		// holds it by (see byHost).
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
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
			resp.Diagnostics.AddError("Could not read "+plan.ID.ValueString()+" on its hosts", err.Error()+"\n\n"+verifyAdvice(err))
			return
		}
		prior = read
	}
	r.push(ctx, req.Config, &plan, prior, state.PushCount, &resp.Diagnostics)
	if plan.HostStatus.IsUnknown() {
		plan.HostStatus = state.HostStatus // nothing was sent
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete leaves the files on the hosts: a running process may still read them.
func (r *configFileResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}
