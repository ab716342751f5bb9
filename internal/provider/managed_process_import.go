package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

const importIDFormat = "namespace/name@host[,host...], each host bk_cloud_id:bk_supplier_id:ip or bk_cloud_id:ip (the spelling of provider::gse::agent_id; " +
	"an IPv6 host needs the first form), such as gse/proc-test@0:0:10.0.0.1,0:10.0.0.2; " +
	"through the gateway a host may be agent_id={agent_id} too, such as gse/proc-test@agent_id=0200000007525400f355781710390005465c,0:0:10.0.0.2"

// ImportState takes namespace/name@cloud:supplier:ip,... (or cloud:ip). The
// spec cannot be read back from GSE: it stays empty until the next apply
// sends it. The process must be registered on every host of the ID: the
// error names those where it is not, which Terraform's own "Cannot import
// non-existent remote object", after a read that found nothing, would not.
func (r *managedProcessResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	meta, hosts, err := parseImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID for gse_managed_process",
			fmt.Sprintf("%s. Expected %s; got %q.", err, importIDFormat, req.ID))
		return
	}
	apiHosts := each(hosts, hostModel.api)
	if err := needsGateway(r.client, apiHosts); err != nil {
		resp.Diagnostics.AddError("Invalid import ID for gse_managed_process", err.Error()+".")
		return
	}
	apiMeta, _ := meta.api(ctx)
	found, err := findProcessHosts(ctx, r.client, apiMeta, apiHosts)
	if err != nil {
		addAPIError(&resp.Diagnostics, "import", apiMeta, err, "Nothing was imported; run the import again once GSE answers.")
		return
	}
	if missing := selectBy(apiHosts, gse.Host.Key, slices.Collect(maps.Keys(found)), false); len(missing) > 0 {
		resp.Diagnostics.AddError(fmt.Sprintf("Process %s not found on %d of %d hosts", apiMeta, len(missing), len(apiHosts)),
			fmt.Sprintf("get_proc_status_v2 finds process %s not registered on %s. Check the namespace, name and hosts of the import ID "+
				"(through the gateway, also that the GSE agent runs there), or leave these hosts out of it; terraform query with the "+
				"gse_managed_process list resource (Terraform 1.14+) lists where the namespace's processes are.",
				apiMeta, strings.Join(each(missing, gse.Host.Address), ", ")))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), meta.Namespace.ValueString()+"/"+meta.Name.ValueString())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("meta"), meta)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("hosts"), newHostList(hosts))...)
}

func parseImportID(id string) (metaModel, []hostModel, error) {
	var meta metaModel
	target, list, ok := strings.Cut(id, "@")
	if !ok {
		return meta, nil, fmt.Errorf("missing '@' between the process and its hosts")
	}
	ns, name, ok := strings.Cut(target, "/")
	if !ok || ns == "" || name == "" || !metaNameRE.MatchString(ns) || !metaNameRE.MatchString(name) {
		return meta, nil, fmt.Errorf("the process %q is not namespace/name", target)
	}
	meta = metaModel{Namespace: types.StringValue(ns), Name: types.StringValue(name), Labels: types.MapNull(types.StringType)}
	var hosts []hostModel
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		var h hostModel
		if agent, ok := strings.CutPrefix(item, "agent_id="); ok {
			if msg := checkAgentID(agent); msg != "" {
				return meta, nil, fmt.Errorf("host %q: the agent id %s", item, msg)
			}
			h = hostModel{AgentID: types.StringValue(agent), BkSupplierID: types.Int64Value(0)}
		} else {
			parsed, err := parseImportHosts(item, true, "host")
			if err != nil && strings.Count(item, ":") == 1 { // bk_cloud_id:ip, as provider::gse::agent_id spells a host
				parsed, err = parseImportHosts(item, false, "host")
			}
			if err != nil {
				return meta, nil, err
			}
			p := parsed[0]
			h = hostModel{IP: types.StringValue(p.ip), BkCloudID: types.Int64Value(p.cloud), BkSupplierID: types.Int64Value(p.supplier)}
		}
		id := h.api().Key()
		if seen[id] {
			return meta, nil, fmt.Errorf("host %q is listed twice", item)
		}
		seen[id] = true
		hosts = append(hosts, h)
	}
	return meta, hosts, nil
}

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
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("hosts"), newHostList(found[0].hosts()))...)
	resp.Diagnostics.Append(resp.Identity.Set(ctx, id)...)
}

var _ list.ListResourceWithConfigure = (*managedProcessList)(nil)

// managedProcessList lists the processes registered in a GSE namespace for
// `terraform query` (Terraform 1.14+), each with the identity that imports
// it as gse_managed_process.
type managedProcessList struct{ client *gse.Client }

func newManagedProcessList() list.ListResource { return &managedProcessList{} }

type managedProcessListModel struct {
	Namespace  types.String `tfsdk:"namespace"`
	NamePrefix types.String `tfsdk:"name_prefix"`
	Labels     types.Map    `tfsdk:"labels"`
}

func (l *managedProcessList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_managed_process"
}

func (l *managedProcessList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.client = clientFrom(req.ProviderData, &resp.Diagnostics)
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
				Validators:          []validator.String{metaName()},
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
		addAPIError(&diags, "list", namespaceTarget(namespace), err, "Check the provider configuration and the ESB endpoint, then run the query again.")
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	stream.Results = func(push func(list.ListResult) bool) {
		for i, p := range found {
			if req.Limit > 0 && int64(i) >= req.Limit {
				return
			}
			result := req.NewListResult(ctx)
			result.DisplayName = fmt.Sprintf("%s on %d %s", p.Meta, len(p.Entries), map[bool]string{true: "host", false: "hosts"}[len(p.Entries) == 1])
			result.Diagnostics.Append(result.Identity.Set(ctx, managedProcessIdentityModel{
				Namespace: types.StringValue(p.Meta.Namespace), Name: types.StringValue(p.Meta.Name),
			})...)
			if req.IncludeResource {
				m, d := p.model(ctx)
				result.Diagnostics.Append(d...)
				result.Diagnostics.Append(result.Resource.Set(ctx, m)...)
			}
			if !push(result) {
				return
			}
		}
	}
}

// namespaceTarget names a whole namespace in an error ("process namespace gse/*").
type namespaceTarget string

func (n namespaceTarget) String() string { return string(n) + "/*" }

// discoveredProcess is a process found in GSE: its meta (labels included)
// and one confirmed status entry per host, ordered by cloud id and IP.
type discoveredProcess struct {
	Meta    gse.Meta
	Entries []gse.ProcStatus
}

// discoverProcesses finds the processes of namespace that keep accepts. It
// lists the namespace with sync_proc_status, then confirms each process with
// get_proc_status_v2 on the hosts listed: sync data can be minutes old, so a
// host no longer registered is dropped, and a process left with none too.
// keep is asked twice, of the listed meta and of the confirmed one (labels
// may have changed since). Processes come ordered by name.
func discoverProcesses(ctx context.Context, c *gse.Client, namespace string, keep func(gse.Meta) bool) ([]discoveredProcess, error) {
	listed, err := c.Proc.ListProcStatus(ctx, namespace)
	if err != nil {
		return nil, err
	}
	hostsOf := map[string][]gse.Host{}
	var names []string
	for _, e := range listed {
		if !keep(e.Meta) {
			continue
		}
		if _, ok := hostsOf[e.Meta.Name]; !ok {
			names = append(names, e.Meta.Name)
		}
		hostsOf[e.Meta.Name] = append(hostsOf[e.Meta.Name], e.Target()) // through the gateway by agent id
	}
	sort.Strings(names)
	var out []discoveredProcess
	for _, name := range names {
		meta := gse.Meta{Namespace: namespace, Name: name}
		byKey, err := findProcessHosts(ctx, c, meta, hostsOf[name])
		if err != nil {
			return nil, err
		}
		if len(byKey) == 0 {
			continue
		}
		entries := slices.Collect(maps.Values(byKey))
		slices.SortFunc(entries, func(a, b gse.ProcStatus) int { return compareByAddress(addressOf(a), addressOf(b)) })
		meta.Labels = entries[0].Meta.Labels
		if keep(meta) {
			out = append(out, discoveredProcess{Meta: meta, Entries: entries})
		}
	}
	return out, nil
}

// hosts are the process's hosts as gse_managed_process holds them (addressOf).
func (d discoveredProcess) hosts() []hostModel {
	out := make([]hostModel, len(d.Entries))
	for i, e := range d.Entries {
		h := addressOf(e)
		out[i] = hostModel{IP: types.StringValue(h.IP), BkCloudID: types.Int64Value(h.BkCloudID), BkSupplierID: types.Int64Value(h.BkSupplierID)}
		if h.AgentID != "" {
			out[i] = hostModel{AgentID: types.StringValue(h.AgentID), BkSupplierID: types.Int64Value(0)}
		}
	}
	return out
}

// addressOf is the host of a discovered entry as gse_managed_process holds
// it: through the gateway by agent id (agent-id installations refuse
// {bk_cloud_id}:{ip}), by ip and bk_cloud_id where the agent id is of that
// form (agent-id mode off) or GSE is reached through ESB.
func addressOf(e gse.ProcStatus) gse.Host {
	h := e.Target()
	if cloud, ip, ok := cloudIPAgent(h.AgentID); ok {
		return gse.Host{IP: ip, BkCloudID: cloud, BkSupplierID: h.BkSupplierID}
	}
	return h
}

// metaModel is the meta block, labels null when the process has none.
func (d discoveredProcess) metaModel(ctx context.Context) (metaModel, diag.Diagnostics) {
	m := metaModel{Namespace: types.StringValue(d.Meta.Namespace), Name: types.StringValue(d.Meta.Name), Labels: types.MapNull(types.StringType)}
	var diags diag.Diagnostics
	if len(d.Meta.Labels) > 0 {
		m.Labels, diags = types.MapValueFrom(ctx, types.StringType, d.Meta.Labels)
	}
	return m, diags
}

// model is the resource as a refresh after import would read it: managed
// when every host hosts the process; running only when every host runs it
// and hosts it (any other value would fail validation in generated
// configuration: running = false needs managed = false); spec null, because
// GSE has no API that returns a registered spec.
func (d discoveredProcess) model(ctx context.Context) (managedProcessModel, diag.Diagnostics) {
	meta, diags := d.metaModel(ctx)
	hosts := d.hosts()
	var hosted, running int
	for _, e := range d.Entries {
		if e.IsAuto {
			hosted++
		}
		if e.Status == gse.StateRunning {
			running++
		}
	}
	m := managedProcessModel{
		ID: types.StringValue(d.Meta.String()), Meta: meta, Hosts: newHostList(hosts),
		Managed: types.BoolValue(hosted == len(hosts)), Running: types.BoolNull(),
		RestartTriggers: types.MapNull(types.StringType), ReloadTriggers: types.MapNull(types.StringType),
		HostStatus: hostStatusValue(hosts, d.byKey()),
		Timeouts:   timeoutsNull(ctx),
	}
	if hosted == len(hosts) && running == len(hosts) {
		m.Running = types.BoolValue(true)
	}
	return m, diags
}

// byKey indexes the confirmed entries by host identity, as findProcessHosts does.
func (d discoveredProcess) byKey() map[string]gse.ProcStatus {
	out := make(map[string]gse.ProcStatus, len(d.Entries))
	for _, e := range d.Entries {
		out[e.Host.Key()] = e
	}
	return out
}

// labelsMatch: every wanted label is on the process with the same value.
func labelsMatch(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// timeoutsNull is an unset timeouts block of gse_managed_process.
func timeoutsNull(ctx context.Context) timeouts.Value {
	t, _ := timeoutsSchema(ctx).GetType().(attr.TypeWithAttributeTypes)
	return timeouts.Value{Object: types.ObjectNull(t.AttributeTypes())}
}

// newManagedProcessResource serves gse_managed_process with its identity.
func newManagedProcessResource() resource.Resource {
	return managedProcessWithIdentity{&managedProcessResource{}}
}
