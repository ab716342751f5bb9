package managedprocess

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// namespaceTarget names a whole namespace in an error ("process namespace gse/*").
type namespaceTarget string

func (n namespaceTarget) String() string { return string(n) + "/*" }

// addDiscoverError reports a failed discovery (the list resource, import by
// identity) as plumbing.AddAPIError does, and, where the installation has no
// sync_proc_status, says what imports instead.
func addDiscoverError(diags *diag.Diagnostics, action string, target fmt.Stringer, err error, next string) {
	if api, ok := gse.MissingAPI(err); ok && api == "sync_proc_status" {
		next = strings.TrimSpace("Listing the processes of a namespace (the gse_managed_process list resource, terraform query) and import by identity need it. " +
			"Import by ID instead, naming the hosts: terraform import gse_managed_process.NAME 'namespace/name@bk_cloud_id:bk_supplier_id:ip[,...]', " +
			"or an import block with that id.\n\n" + next)
	}
	plumbing.AddAPIError(diags, action, target, err, next)
}

// discoveredProcess is a process found in GSE (status.Discover), with what
// gse_managed_process makes of it.
type discoveredProcess struct{ status.Discovered }

// discoverProcesses finds the processes of namespace that keep accepts
// (status.Discover).
func discoverProcesses(ctx context.Context, c *gse.Client, namespace string, keep func(gse.Meta) bool) ([]discoveredProcess, error) {
	found, err := status.Discover(ctx, c, namespace, keep)
	out := make([]discoveredProcess, len(found))
	for i, d := range found {
		out[i] = discoveredProcess{d}
	}
	return out, err
}

// flattenMeta is the meta block, labels null when the process has none.
func (d discoveredProcess) flattenMeta(ctx context.Context) (spec.Meta, diag.Diagnostics) {
	m := spec.Meta{Namespace: types.StringValue(d.Meta.Namespace), Name: types.StringValue(d.Meta.Name), Labels: types.MapNull(types.StringType)}
	var diags diag.Diagnostics
	if len(d.Meta.Labels) > 0 {
		m.Labels, diags = types.MapValueFrom(ctx, types.StringType, d.Meta.Labels)
	}
	return m, diags
}

// flatten is the resource as a refresh after import would read it: managed
// when every host hosts the process; running only when every host runs it
// and hosts it (any other value would fail validation in generated
// configuration: running = false needs managed = false); spec null, because
// GSE has no API that returns a registered spec.
func (d discoveredProcess) flatten(ctx context.Context) (managedProcessModel, diag.Diagnostics) {
	meta, diags := d.flattenMeta(ctx)
	models := d.Hosts()
	list := hosts.NewList(models)
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
		ID: types.StringValue(d.Meta.String()), Meta: meta, Hosts: list,
		Managed: types.BoolValue(hosted == len(models)), Running: types.BoolNull(),
		RestartTriggers: types.MapNull(types.StringType), ReloadTriggers: types.MapNull(types.StringType),
		HostStatus: status.Observed{Found: d.byKey()}.HostStatus(list.Pairs(), status.HostStatus{}),
		Timeouts:   timeoutsNull(ctx),
	}
	if hosted == len(models) && running == len(models) {
		m.Running = types.BoolValue(true)
	}
	return m, diags
}

// byKey indexes the confirmed entries by host identity, as status.Find does.
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
