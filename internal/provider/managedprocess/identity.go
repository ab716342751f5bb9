package managedprocess

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
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

// gse_managed_process has a resource identity, { namespace, name } (Terraform
// 1.12+; older CLIs ignore it). It follows from meta, which cannot change
// without replacement, so Create, Read and Update set it from the data the
// call was given, and an import may give it instead of an ID.

// managedProcessIdentitySchema is the identity's schema.
func managedProcessIdentitySchema() identityschema.Schema {
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"namespace": identityschema.StringAttribute{RequiredForImport: true, Description: "Namespace of the process (meta.namespace)."},
		"name":      identityschema.StringAttribute{RequiredForImport: true, Description: "Name of the process (meta.name)."},
	}}
}

type managedProcessIdentityModel struct {
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
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

// appendIdentity is identityFrom for a defer: it adds what it reports to diags.
func appendIdentity(ctx context.Context, data interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	diags.Append(identityFrom(ctx, data, identity)...)
}

// importByIdentity imports by identity: the hosts are discovered, listed by
// sync_proc_status and confirmed one by one with get_proc_status_v2.
func importByIdentity(ctx context.Context, c *gse.Client, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var id managedProcessIdentityModel
	resp.Diagnostics.Append(req.Identity.Get(ctx, &id)...)
	if resp.Diagnostics.HasError() {
		return
	}
	for _, v := range []struct {
		name string
		val  types.String
	}{{"namespace", id.Namespace}, {"name", id.Name}} {
		if !plumbing.MetaNameRE.MatchString(v.val.ValueString()) {
			resp.Diagnostics.AddAttributeError(path.Root(v.name), "Invalid identity for gse_managed_process",
				fmt.Sprintf("identity.%s must be non-empty and hold none of ':', '/', '@', ',' or whitespace; got %q.", v.name, v.val.ValueString()))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	meta := spec.MetaRef{Namespace: id.Namespace, Name: id.Name}.Expand()
	found, err := discoverProcesses(ctx, c, meta.Namespace, func(m gse.Meta) bool { return m.Name == meta.Name })
	if err != nil {
		addDiscoverError(&resp.Diagnostics, "discover the hosts of", meta, err, "Nothing was imported; run the import again once GSE answers.")
		return
	}
	if len(found) == 0 {
		resp.Diagnostics.AddError(fmt.Sprintf("Process %s not found", meta),
			fmt.Sprintf("GSE lists no host with process %s (sync_proc_status of namespace %q, each host confirmed with get_proc_status_v2). "+
				"Check the namespace and name, or import by ID with the hosts: %s.", meta, meta.Namespace, importIDFormat))
		return
	}
	m, d := found[0].flattenMeta(ctx)
	resp.Diagnostics.Append(d...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), meta.String())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("meta"), m)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("hosts"), hosts.NewList(found[0].Hosts()))...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, id)...)
}
