package service

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/lifecycle"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

var (
	_ resource.ResourceWithConfigure      = (*serviceResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*serviceResource)(nil)
	_ resource.ResourceWithValidateConfig = (*serviceResource)(nil)
	_ resource.ResourceWithImportState    = (*serviceResource)(nil)
)

// serviceResource is gse_service.
type serviceResource struct{ client *gse.Client }

// NewResource is gse_service.
func NewResource() resource.Resource { return &serviceResource{} }

func (r *serviceResource) steps() lifecycle.Steps { return lifecycle.Steps{Client: r.client} }

func (r *serviceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_service"
}

func (r *serviceResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = serviceSchema(ctx)
}

func (r *serviceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = plumbing.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

// Create runs the planned release. Instances that failed or did not run are
// recorded in the state with a warning, never an error: an error would
// taint the service, and its replacement restart every healthy instance.
// Only when nothing was sent does it fail, leaving no state.
func (r *serviceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m serviceModel
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := plumbing.Deadline(ctx, m.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	p := &prior{groups: map[string]*group{}, models: map[string]instanceModel{}}
	rel := r.release(ctx, &m, p, configFiles(ctx, req.Config, &resp.Diagnostics), &resp.Diagnostics)
	if rel == nil {
		return
	}
	if !rel.sent && len(m.Schedule.Elements()) > 0 {
		resp.Diagnostics.AddError("Could not create the service", rel.summary()+"\n\nNothing was sent to GSE, so nothing exists: fix the cause and apply again.")
		return
	}
	if rel.failed > 0 || rel.pending > 0 {
		resp.Diagnostics.AddWarning("The service was created in part", rel.summary()+"\n\n"+partialAdvice)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// partialAdvice says what a partial create leaves and how CI sees it.
const partialAdvice = "The service is in the state with each instance's outcome (instances[*].status, code, message), not tainted: " +
	"the next apply runs only the failed and pending instances. To fail a pipeline on it, give the resource " +
	"lifecycle { postcondition { condition = self.failed_count == 0 } }."

// Update runs the planned release; failures are errors, with the state
// holding each instance's outcome, so the next apply resumes there.
func (r *serviceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m, s serviceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &s)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := plumbing.Deadline(ctx, m.Timeouts.Update, &resp.Diagnostics)
	defer cancel()
	p := stateOf(ctx, &s, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	rel := r.release(ctx, &m, p, configFiles(ctx, req.Config, &resp.Diagnostics), &resp.Diagnostics)
	if rel == nil {
		return
	}
	switch {
	case rel.failed > 0 || rel.stopped:
		resp.Diagnostics.AddError("The release of the service did not finish", rel.summary()+"\n\nThe state holds each instance's outcome: the next apply runs only the failed and pending instances.")
	case rel.pending > 0:
		resp.Diagnostics.AddWarning("Instances left pending", rel.summary())
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete removes every instance, tier by tier in descending priority; the
// config files the service pushed stay on the hosts.
func (r *serviceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var s serviceModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &s)...); resp.Diagnostics.HasError() {
		return
	}
	if refuseSpecless(r.client, &s, &resp.Diagnostics) {
		return
	}
	ctx, cancel := plumbing.Deadline(ctx, s.Timeouts.Delete, &resp.Diagnostics)
	defer cancel()
	p := stateOf(ctx, &s, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	rel := r.teardown(ctx, &s, p, &resp.Diagnostics)
	if rel != nil && (rel.failed > 0 || rel.pending > 0) {
		resp.Diagnostics.AddError("Could not remove the whole service", rel.summary()+"\n\nThe service stays in the state with the instances left; destroy again once their cause is fixed.")
		resp.Diagnostics.Append(resp.State.Set(ctx, &s)...)
	}
}

// configFiles is config_files as the configuration gives it: with
// content_wo, which plans and states never hold; decoded when read.
func configFiles(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) packedMap[configFilesSchema] {
	var v packedMap[configFilesSchema]
	diags.Append(config.GetAttribute(ctx, path.Root("config_files"), &v)...)
	return v
}
