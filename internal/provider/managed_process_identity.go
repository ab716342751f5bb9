package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// managedProcessWithIdentity is gse_managed_process with a resource identity,
// { namespace, name } (Terraform 1.12+; older CLIs ignore it). It wraps the
// resource rather than editing its CRUD: the identity follows from meta,
// which cannot change without replacement, so it is set after each call
// from the data the call was given.
type managedProcessWithIdentity struct{ *managedProcessResource }

var (
	_ resource.ResourceWithIdentity    = managedProcessWithIdentity{}
	_ resource.ResourceWithImportState = managedProcessWithIdentity{}
	_ resource.ResourceWithModifyPlan  = managedProcessWithIdentity{}
)

type managedProcessIdentityModel struct {
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
}

func (managedProcessWithIdentity) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"namespace": identityschema.StringAttribute{RequiredForImport: true, Description: "Namespace of the process (meta.namespace)."},
		"name":      identityschema.StringAttribute{RequiredForImport: true, Description: "Name of the process (meta.name)."},
	}}
}

// identityFrom sets identity from the meta in data (a plan or a state).
func identityFrom(ctx context.Context, data interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}, identity *tfsdk.ResourceIdentity) diag.Diagnostics {
	var id managedProcessIdentityModel
	diags := data.GetAttribute(ctx, path.Root("meta").AtName("namespace"), &id.Namespace)
	diags.Append(data.GetAttribute(ctx, path.Root("meta").AtName("name"), &id.Name)...)
	if diags.HasError() || identity == nil {
		return diags
	}
	return append(diags, identity.Set(ctx, id)...)
}

func (r managedProcessWithIdentity) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.managedProcessResource.Create(ctx, req, resp)
	resp.Diagnostics.Append(identityFrom(ctx, req.Plan, resp.Identity)...)
}

// Read takes the identity from the prior state: when the process is gone
// the new state is null, and Terraform still expects the identity.
func (r managedProcessWithIdentity) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.managedProcessResource.Read(ctx, req, resp)
	resp.Diagnostics.Append(identityFrom(ctx, req.State, resp.Identity)...)
}

func (r managedProcessWithIdentity) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.managedProcessResource.Update(ctx, req, resp)
	resp.Diagnostics.Append(identityFrom(ctx, req.Plan, resp.Identity)...)
}

// ImportState takes the string ID (namespace/name@hosts) as before, or an
// identity: then the hosts are discovered, listed by sync_proc_status and
// confirmed one by one with get_proc_status_v2.
func (r managedProcessWithIdentity) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID != "" {
		r.managedProcessResource.ImportState(ctx, req, resp)
		if !resp.Diagnostics.HasError() {
			resp.Diagnostics.Append(identityFrom(ctx, resp.State, resp.Identity)...)
		}
		return
	}
	var id managedProcessIdentityModel
	resp.Diagnostics.Append(req.Identity.Get(ctx, &id)...)
	if resp.Diagnostics.HasError() {
		return
	}
	for _, v := range []struct {
		name string
		val  types.String
	}{{"namespace", id.Namespace}, {"name", id.Name}} {
		if !metaNameRE.MatchString(v.val.ValueString()) {
			resp.Diagnostics.AddAttributeError(path.Root(v.name), "Invalid identity for gse_managed_process",
				fmt.Sprintf("identity.%s must be non-empty and hold none of ':', '/', '@', ',' or whitespace; got %q.", v.name, v.val.ValueString()))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	meta := gse.Meta{Namespace: id.Namespace.ValueString(), Name: id.Name.ValueString()}
	found, err := discoverProcesses(ctx, r.client, meta.Namespace, func(m gse.Meta) bool { return m.Name == meta.Name })
	if err != nil {
		addAPIError(&resp.Diagnostics, "discover the hosts of", meta, err, "Nothing was imported; run the import again once GSE answers.")
		return
	}
	if len(found) == 0 {
		resp.Diagnostics.AddError(fmt.Sprintf("Process %s not found", meta),
			fmt.Sprintf("GSE lists no host with process %s (sync_proc_status of namespace %q, each host confirmed with get_proc_status_v2). "+
				"Check the namespace and name, or import by ID with the hosts: %s.", meta, meta.Namespace, importIDFormat))
		return
	}
	m, d := found[0].metaModel(ctx)
	resp.Diagnostics.Append(d...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), meta.String())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("meta"), m)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("hosts"), found[0].hosts())...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, id)...)
}
