package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

const defaultTimeout = 10 * time.Minute

var (
	_ resource.ResourceWithConfigure      = (*managedProcessResource)(nil)
	_ resource.ResourceWithImportState    = (*managedProcessResource)(nil)
	_ resource.ResourceWithValidateConfig = (*managedProcessResource)(nil)
)

type managedProcessResource struct{ client *gse.Client }

func newManagedProcessResource() resource.Resource { return &managedProcessResource{} }

func (r *managedProcessResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_managed_process"
}

func (r *managedProcessResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = clientFrom(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig rejects run states GSE cannot hold: a start hosts the process
// and a stop unhosts it, so the other pairings would drift forever.
func (r *managedProcessResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var managed, running types.Bool
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("managed"), &managed)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("running"), &running)...)
	if managed.IsUnknown() || running.IsUnknown() || running.IsNull() {
		return
	}
	wantManaged := managed.IsNull() || managed.ValueBool()
	switch {
	case wantManaged && !running.ValueBool():
		resp.Diagnostics.AddAttributeError(path.Root("running"), "running = false needs managed = false",
			"GSE unhosts a process when it stops it (op_type 1), and a hosted resident process is pulled up again by the agent. Set managed = false to keep the process stopped, or leave running unset.")
	case !wantManaged && running.ValueBool():
		resp.Diagnostics.AddAttributeError(path.Root("running"), "running = true needs managed = true",
			"GSE hosts a process when it starts it (op_type 0), so managed = false could never hold. Set managed = true, or leave running unset.")
	}
}

// run performs op on hosts and waits for it. Without a spec (an imported
// resource before its first apply) it uses operate_proc, which acts on the
// registered spec.
func (r *managedProcessResource) run(ctx context.Context, meta gse.Meta, spec *gse.Spec, op gse.OpType, hosts []gse.Host) error {
	if len(hosts) == 0 {
		return nil
	}
	req := gse.OperateRequest{Meta: meta, Hosts: hosts, Op: op, Spec: spec}
	var err error
	if spec == nil {
		_, err = r.client.OperateV1(ctx, req)
	} else {
		_, err = r.client.Operate(ctx, req)
	}
	return err
}

// teardown stops (when asked), unhosts and unregisters the process on hosts.
// It reads the status first so that hosts where the process is already gone
// are skipped: that is not an error. It returns the hosts now clear of it.
func (r *managedProcessResource) teardown(ctx context.Context, meta gse.Meta, spec *gse.Spec, hosts []gse.Host, stop bool) ([]gse.Host, error) {
	entries, err := r.client.GetProcStatusV2(ctx, meta, hosts)
	if err != nil {
		return nil, err
	}
	registered := statusByAddr(entries)
	var present, gone []gse.Host
	for _, h := range hosts {
		if _, ok := registered[h.Addr()]; ok {
			present = append(present, h)
		} else {
			gone = append(gone, h)
		}
	}
	if stop {
		if err := r.run(ctx, meta, spec, gse.OpStop, present); err != nil {
			return gone, err
		}
	}
	if err := r.run(ctx, meta, spec, gse.OpUnhost, present); err != nil {
		return gone, err
	}
	if len(present) == 0 {
		return gone, nil
	}
	done, err := r.client.UnregisterProcInfo(ctx, meta, present)
	return append(gone, done...), err
}

// refreshHostStatus fills host_status after an apply. A failed read does not
// undo the apply: it leaves the map empty with a warning.
func (r *managedProcessResource) refreshHostStatus(ctx context.Context, m *managedProcessModel, meta gse.Meta, diags *diag.Diagnostics) {
	m.HostStatus = types.MapValueMust(hostStatusType, nil)
	if len(m.Hosts) == 0 {
		return
	}
	entries, err := r.client.GetProcStatusV2(ctx, meta, apiHosts(m.Hosts))
	if err != nil {
		diags.AddWarning("Could not read the process status after apply", err.Error()+"\n\nhost_status stays empty until the next refresh.")
		return
	}
	v, d := hostStatusValue(m.Hosts, statusByAddr(entries))
	diags.Append(d...)
	m.HostStatus = v
}

func (r *managedProcessResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan managedProcessModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, cancel := deadline(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	meta, d := plan.Meta.api(ctx)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	spec := plan.Spec.api()
	plan.ID = types.StringValue(meta.String())

	registered, err := r.client.RegisterProcInfo(ctx, meta, apiHosts(plan.Hosts), spec)
	if err == nil {
		err = r.converge(ctx, meta, spec, &plan, registered)
	}
	if err != nil {
		addAPIError(&resp.Diagnostics, "create", meta, err,
			"The hosts where the process was registered are kept in the state, and the resource is tainted: "+
				"the next apply unregisters and creates it again. Fix the cause above first.")
		if len(registered) == 0 {
			return // nothing exists remotely: no state
		}
		plan.Hosts = selectBy(plan.Hosts, hostModel.api, registered, true)
	}
	r.refreshHostStatus(ctx, &plan, meta, &resp.Diagnostics)
	resp.Diagnostics.Append(saveDesired(ctx, resp.Private, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// converge brings freshly registered hosts to the planned hosting and run state.
func (r *managedProcessResource) converge(ctx context.Context, meta gse.Meta, spec *gse.Spec, plan *managedProcessModel, hosts []gse.Host) error {
	if plan.Managed.ValueBool() {
		if err := r.run(ctx, meta, spec, gse.OpHost, hosts); err != nil {
			return err
		}
	}
	if !plan.Running.IsNull() {
		op := gse.OpStop
		if plan.Running.ValueBool() {
			op = gse.OpStart
		}
		return r.run(ctx, meta, spec, op, hosts)
	}
	return nil
}

// Read refreshes the runtime state. Hosts where the process is no longer
// registered leave the state; with none left, the resource does. managed and
// running turn to what GSE reports, so a plan shows the drift.
func (r *managedProcessResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state managedProcessModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	meta, d := state.Meta.api(ctx)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	entries, err := r.client.GetProcStatusV2(ctx, meta, apiHosts(state.Hosts))
	if err != nil {
		addAPIError(&resp.Diagnostics, "read", meta, err, "Check the provider configuration and the ESB endpoint, then refresh again.")
		return
	}
	want := loadDesired(ctx, req.Private, &state, &resp.Diagnostics)
	byAddr := statusByAddr(entries)
	var kept []hostModel
	var hosted, running int
	var labels map[string]string
	for _, h := range state.Hosts {
		e, ok := byAddr[h.api().Addr()]
		if !ok {
			continue
		}
		kept = append(kept, h)
		labels = e.Meta.Labels
		if e.IsAuto {
			hosted++
		}
		if e.Status == gse.StateRunning {
			running++
		}
	}
	if len(kept) == 0 {
		resp.Diagnostics.AddWarning(fmt.Sprintf("Process %s is gone", meta),
			"GSE no longer has the process registered on any of its hosts, so it was removed from the state; the next apply creates it again.")
		resp.State.RemoveResource(ctx)
		return
	}
	state.Hosts = kept
	// Judged against what was asked: true holds while every host agrees, false while none disagrees.
	state.Managed = types.BoolValue(agrees(want.Managed, hosted, len(kept)))
	if want.Running != nil {
		state.Running = types.BoolValue(agrees(*want.Running, running, len(kept)))
	}
	switch {
	case len(labels) > 0:
		state.Meta.Labels, d = types.MapValueFrom(ctx, types.StringType, labels)
		resp.Diagnostics.Append(d...)
	case len(state.Meta.Labels.Elements()) > 0:
		state.Meta.Labels = types.MapNull(types.StringType)
	}
	state.HostStatus, d = hostStatusValue(kept, byAddr)
	resp.Diagnostics.Append(d...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *managedProcessResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state managedProcessModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	ctx, cancel := deadline(ctx, state.Timeouts.Delete, &resp.Diagnostics)
	defer cancel()
	meta, d := state.Meta.api(ctx)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	if _, err := r.teardown(ctx, meta, state.Spec.api(), apiHosts(state.Hosts), state.Running.ValueBool()); err != nil {
		addAPIError(&resp.Diagnostics, "delete", meta, err,
			"The resource stays in the state; hosts already cleared are skipped when destroy runs again.")
	}
}
