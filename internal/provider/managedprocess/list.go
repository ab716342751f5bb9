package managedprocess

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

var _ list.ListResourceWithConfigure = (*managedProcessList)(nil)

// managedProcessList lists the processes registered in a GSE namespace for
// `terraform query` (Terraform 1.14+), each with the identity that imports
// it as gse_managed_process.
type managedProcessList struct{ client *gse.Client }

// NewList is the list resource of gse_managed_process (terraform query).
func NewList() list.ListResource { return &managedProcessList{} }

type managedProcessListModel struct {
	Namespace  types.String `tfsdk:"namespace"`
	NamePrefix types.String `tfsdk:"name_prefix"`
	Labels     types.Map    `tfsdk:"labels"`
}

func (l *managedProcessList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_managed_process"
}

func (l *managedProcessList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.client = plumbing.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

func (l *managedProcessList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Finds the processes registered in a GSE namespace, to adopt them with `terraform query -generate-config-out=FILE`. " +
			"The namespace is listed with `sync_proc_status` (GSE's cached view, a page of 1000 entries at a time) and every process found is confirmed on its hosts " +
			"with `get_proc_status_v2`, so hosts it has left since are not reported. Each result is named `namespace/name on N hosts` and carries the identity " +
			"`{ namespace, name }` of `gse_managed_process`. With `include_resource = true` it also carries `meta` (labels included), `hosts`, `managed` " +
			"(every host hosts the process), `running` (true when every host runs and hosts it, else null) and `host_status`. " +
			"`spec` is always null: GSE has no API that returns a registered spec, so fill it in before `terraform apply` (which sends it again).",
		Attributes: map[string]schema.Attribute{
			"namespace": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Namespace to list (`meta.namespace`).",
				Validators:          []validator.String{plumbing.MetaName()},
			},
			"name_prefix": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only processes whose name starts with this.",
			},
			"labels": schema.MapAttribute{
				ElementType:         types.StringType,
				Optional:            true,
				MarkdownDescription: "Only processes carrying every one of these labels with the same value (`meta.labels`).",
			},
		},
	}
}

func (l *managedProcessList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg managedProcessListModel
	diags := req.Config.Get(ctx, &cfg)
	var labels map[string]string
	if !cfg.Labels.IsNull() {
		diags.Append(cfg.Labels.ElementsAs(ctx, &labels, false)...)
	}
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	namespace, prefix := cfg.Namespace.ValueString(), cfg.NamePrefix.ValueString()
	found, err := discoverProcesses(ctx, l.client, namespace, func(m gse.Meta) bool {
		return strings.HasPrefix(m.Name, prefix) && labelsMatch(m.Labels, labels)
	})
	if err != nil {
		addDiscoverError(&diags, "list", namespaceTarget(namespace), err, "Check the provider configuration (endpoint or gateway_url), then run the query again.")
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	stream.Results = func(push func(list.ListResult) bool) {
		for i, p := range found {
			if req.Limit > 0 && int64(i) >= req.Limit {
				return
			}
			result := req.NewListResult(ctx)
			result.DisplayName = fmt.Sprintf("%s on %s", p.Meta, plumbing.HostCount(len(p.Entries)))
			result.Diagnostics.Append(result.Identity.Set(ctx, managedProcessIdentityModel{
				Namespace: types.StringValue(p.Meta.Namespace), Name: types.StringValue(p.Meta.Name),
			})...)
			if req.IncludeResource {
				m, d := p.flatten(ctx)
				result.Diagnostics.Append(d...)
				result.Diagnostics.Append(result.Resource.Set(ctx, m)...)
			}
			if !push(result) {
				return
			}
		}
	}
}
