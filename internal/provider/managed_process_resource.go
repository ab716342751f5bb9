package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

var (
	_ resource.ResourceWithConfigure      = (*managedProcessResource)(nil)
	_ resource.ResourceWithImportState    = (*managedProcessResource)(nil)
	_ resource.ResourceWithValidateConfig = (*managedProcessResource)(nil)
)

func (r *managedProcessResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_managed_process"
}

func (r *managedProcessResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = managedProcessSchema(ctx)
}

func (r *managedProcessResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = clientFrom(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig checks what spans several attributes: run states GSE cannot
// hold, operations without their command, and deadlines that could never pass.
func (r *managedProcessResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var c struct {
		managed, running                types.Bool
		restartTriggers, reloadTriggers types.Map
		startCmd, restartCmd, reloadCmd types.String
		autoType                        types.Int64
		crontabRule                     types.String
	}
	for _, a := range []struct {
		at     path.Path
		target any
	}{
		{path.Root("managed"), &c.managed}, {path.Root("running"), &c.running},
		{path.Root("restart_triggers"), &c.restartTriggers}, {path.Root("reload_triggers"), &c.reloadTriggers},
		{controlPath.AtName("start_cmd"), &c.startCmd}, {controlPath.AtName("restart_cmd"), &c.restartCmd}, {controlPath.AtName("reload_cmd"), &c.reloadCmd},
		{policyPath.AtName("auto_type"), &c.autoType}, {policyPath.AtName("crontab_rule"), &c.crontabRule},
	} {
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, a.at, a.target)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	validateRunState(c.managed, c.running, &resp.Diagnostics)
	validateRolloutSize(ctx, req.Config, path.Root("rollout"), elementCount(ctx, req.Config, path.Root("hosts")), &resp.Diagnostics)
	needsCommand(c.running.ValueBool(), "running = true", "starts the process (op_type 0)", c.startCmd, controlPath.AtName("start_cmd"), &resp.Diagnostics)
	needsCommand(!c.restartTriggers.IsNull(), "restart_triggers", "restarts the process (op_type 7) when they change", c.restartCmd, controlPath.AtName("restart_cmd"), &resp.Diagnostics)
	needsCommand(!c.reloadTriggers.IsNull(), "reload_triggers", "reloads the process (op_type 8) when they change", c.reloadCmd, controlPath.AtName("reload_cmd"), &resp.Diagnostics)
	// A warning, not an error: GSE accepts a periodic process without a rule
	// (operate_proc_v2 documents crontab_rule as optional and reserved), but nothing will run it.
	if !c.autoType.IsUnknown() && !c.autoType.IsNull() && c.autoType.ValueInt64() == 0 && c.crontabRule.IsNull() {
		resp.Diagnostics.AddAttributeWarning(policyPath.AtName("crontab_rule"), "Periodic process without crontab_rule",
			"auto_type = 0 makes the process periodic: the agent runs it on the schedule in crontab_rule, and without one it is never run. "+
				"Set crontab_rule (for example \"*/5 * * * *\"), or auto_type = 1 for a resident process.")
	}
}

var (
	controlPath = path.Root("spec").AtName("control")
	policyPath  = path.Root("spec").AtName("monitor_policy")
)

// validateRunState rejects run states GSE cannot hold: a start hosts the
// process and a stop unhosts it, so the other pairings would drift forever.
func validateRunState(managed, running types.Bool, diags *diag.Diagnostics) {
	if managed.IsUnknown() || running.IsUnknown() || running.IsNull() {
		return
	}
	wantManaged := managed.IsNull() || managed.ValueBool()
	switch {
	case wantManaged && !running.ValueBool():
		diags.AddAttributeError(path.Root("running"), "running = false needs managed = false",
			"GSE unhosts a process when it stops it (op_type 1), and a hosted resident process is pulled up again by the agent. Set managed = false to keep the process stopped, or leave running unset.")
	case !wantManaged && running.ValueBool():
		diags.AddAttributeError(path.Root("running"), "running = true needs managed = true",
			"GSE hosts a process when it starts it (op_type 0), so managed = false could never hold. Set managed = true, or leave running unset.")
	}
}

// needsCommand rejects a setting that runs an operation whose command is unset:
// the agent would fail it on every host at apply time.
func needsCommand(set bool, setting, does string, cmd types.String, at path.Path, diags *diag.Diagnostics) {
	if set && cmd.IsNull() {
		diags.AddAttributeError(at, fmt.Sprintf("%s needs %s", setting, at),
			fmt.Sprintf("%s %s, which runs %s on every host; it is unset. Set %s, or remove %s.", setting, does, at, at, setting))
	}
}

func (r *managedProcessResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	// Announced first thing, so that other creates' operations wait for this
	// one's and no batch waits for nothing (gse.ProcService.ExpectOperate).
	ctx, withdraw := r.client.Proc.ExpectOperate(ctx)
	defer withdraw()
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
	hosts := each(plan.Hosts.Hosts(), hostModel.api)
	var pr proven // no prior host_status

	err := reachable(ctx, r.client, hosts) // common_gateway.go
	if err == nil {
		err = refuseLive(ctx, r.client, meta, hosts) // managed_process_replace.go
	}
	var registered []gse.Host
	if err == nil {
		registered, err = r.createInBatches(ctx, meta, spec, &plan, hosts, &pr) // managed_process_apply.go
	}
	if err != nil {
		if len(registered) == 0 {
			addAPIError(&resp.Diagnostics, "create", meta, err, "Nothing was registered by this create, so the resource is not in the state.")
			return // nothing exists remotely: no state
		}
		addAPIError(&resp.Diagnostics, "create", meta, err, fmt.Sprintf(
			"The %d hosts where the process may be registered are kept in the state, and the resource is tainted: "+
				"the next apply removes it there and creates it again. Fix the cause above first.", len(registered)))
		plan.Hosts = newHostList(selectBy(plan.Hosts.Hosts(), keyOf(hostModel.api), each(registered, gse.Host.Key), true))
	}
	if err == nil {
		plan.HostStatus = r.appliedStatus(ctx, meta, plan.Hosts.Hosts(), &pr, &resp.Diagnostics)
	} else {
		plan.HostStatus = pr.value(plan.Hosts.Hosts())
	}
	resp.Diagnostics.Append(saveDesired(ctx, resp.Private, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read refreshes the runtime state. Hosts where the process is no longer
// registered leave the state; with none left, the resource does. managed and
// running turn to what GSE reports, so a plan shows the drift; running of a
// one-shot process (auto_type 2) is not read back.
func (r *managedProcessResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state refreshedModel
	resp.Diagnostics.Append(state.get(ctx, req.State)...)
	ctx, cancel := deadline(ctx, state.Timeouts.Read, &resp.Diagnostics)
	defer cancel()
	prior := state
	meta, d := state.Meta.api(ctx)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	hosts := each(state.Hosts.Hosts(), hostModel.api)
	var byKey map[string]gse.ProcStatus
	down, err := downAgents(ctx, r.client, hosts) // gateway: hosts whose status is unknown
	if err == nil {
		byKey, err = findProcessHosts(ctx, r.client, meta, upHosts(hosts, down))
	}
	if err != nil {
		addAPIError(&resp.Diagnostics, "read", meta, err, "Check the provider configuration and the ESB endpoint or gateway, then refresh again.")
		return
	}
	want := loadDesired(ctx, req.Private, state.Managed, state.Running, &resp.Diagnostics)
	var kept []hostModel
	var hosted, running int
	var labels map[string]string
	for _, h := range state.Hosts.Hosts() {
		key := h.api().Key()
		if _, isDown := down[key]; isDown {
			kept = append(kept, h) // unknown, not gone: counted in neither flag
			continue
		}
		e, ok := byKey[key]
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
	state.Hosts = newHostList(kept)
	warnAgentsDown(&resp.Diagnostics, "process "+meta.String(), down)
	// Judged against what was asked: true holds while every host agrees, false while none disagrees.
	if seen := len(kept) - len(down); seen > 0 {
		state.Managed = types.BoolValue(observedFlag(want.Managed, hosted, seen))
		// A one-shot exits by design: running is what Terraform did, not read back.
		if want.Running != nil && state.AutoType.ValueInt64() != gse.AutoTypeOneShot {
			state.Running = types.BoolValue(observedFlag(*want.Running, running, seen))
		}
	}
	switch {
	case len(labels) > 0:
		state.Meta.Labels, d = types.MapValueFrom(ctx, types.StringType, labels)
		resp.Diagnostics.Append(d...)
	case len(state.Meta.Labels.Elements()) > 0:
		state.Meta.Labels = types.MapNull(types.StringType)
	}
	state.HostStatus = keepDownStatus(hostStatusValue(kept, byKey), state.HostStatus, kept, down)
	resp.Diagnostics.Append(state.setChanged(ctx, prior, &resp.State)...)
}

func (r *managedProcessResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, withdraw := r.client.Proc.ExpectOperate(ctx) // as in Create
	defer withdraw()
	var state managedProcessModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	ctx, cancel := deadline(ctx, state.Timeouts.Delete, &resp.Diagnostics)
	defer cancel()
	meta, d := state.Meta.api(ctx)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Stop when the process is, or was asked to be, running: a stop also unhosts.
	want := loadDesired(ctx, req.Private, state.Managed, state.Running, &resp.Diagnostics)
	stop := state.Running.ValueBool() || (want.Running != nil && *want.Running)
	hosts := each(state.Hosts.Hosts(), hostModel.api)
	err := agentsUp(ctx, r.client, hosts) // gateway: fail at once on a down agent
	if err == nil {
		_, err = r.teardown(ctx, meta, state.Spec.api(), hosts, stop)
	}
	if err != nil {
		addAPIError(&resp.Diagnostics, "delete", meta, err,
			"The resource stays in the state; hosts already cleared are skipped when destroy runs again.")
		return
	}
	warnRecordsLeft(&resp.Diagnostics, r.client, meta, hosts, stop)
}

// warnRecordsLeft says, after a destroy through the GSE 2.0 gateway, which
// process records stay: GSE 2.0 has no unregister, so a destroy stops or
// unhosts the process and GSE keeps its record (see register).
func warnRecordsLeft(diags *diag.Diagnostics, c *gse.Client, meta gse.Meta, hosts []gse.Host, stopped bool) {
	if !c.Gateway() || len(hosts) == 0 {
		return
	}
	state := "unhosted"
	if stopped {
		state = "stopped and unhosted"
	}
	diags.AddWarning(fmt.Sprintf("Process %s stays registered on GSE 2.0, %s", meta, state),
		fmt.Sprintf("The GSE 2.0 API gateway has no API that removes a process, so destroy %s it and GSE keeps its record on %s; "+
			"get_proc_status_v2 still reports it there. A later gse_managed_process with namespace %q and name %q creates it again over that record.",
			map[bool]string{true: "stopped", false: "unhosted"}[stopped], strings.Join(each(hosts, gse.Host.Address), ", "), meta.Namespace, meta.Name))
}

// refreshedModel is the part of gse_managed_process that Read looks at and
// may change; the rest (spec, triggers, timeouts) stays as it is in the state.
// Read runs for every resource on every plan, and getting and setting the
// whole model costs more than the rest of the refresh: the framework reflects
// over every field of every nested struct each time (terraform-plugin-framework
// v1.19 compiles a regular expression per field) and rewrites the whole value
// once per attribute set.
type refreshedModel struct {
	Meta       metaModel
	Hosts      hostList
	Managed    types.Bool
	Running    types.Bool
	HostStatus hostStatusMap
	AutoType   types.Int64    // spec.monitor_policy.auto_type, read only; null without a spec
	Timeouts   timeouts.Value // read only
}

func (m *refreshedModel) get(ctx context.Context, s tfsdk.State) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, f := range []struct {
		at     path.Path
		target any
	}{
		{path.Root("meta"), &m.Meta}, {path.Root("hosts"), &m.Hosts}, {path.Root("managed"), &m.Managed},
		{path.Root("running"), &m.Running}, {path.Root("host_status"), &m.HostStatus}, {path.Root("timeouts"), &m.Timeouts},
		{policyPath.AtName("auto_type"), &m.AutoType},
	} {
		diags.Append(s.GetAttribute(ctx, f.at, f.target)...)
	}
	return diags
}

// setChanged writes into s (which holds prior) the attributes of m that Read
// changed. Read only drops hosts, so the hosts changed when fewer are left.
func (m *refreshedModel) setChanged(ctx context.Context, prior refreshedModel, s *tfsdk.State) diag.Diagnostics {
	var diags diag.Diagnostics
	if len(m.Hosts.Hosts()) != len(prior.Hosts.Hosts()) {
		diags.Append(s.SetAttribute(ctx, path.Root("hosts"), m.Hosts)...)
	}
	if !m.Meta.Labels.Equal(prior.Meta.Labels) {
		diags.Append(s.SetAttribute(ctx, path.Root("meta").AtName("labels"), m.Meta.Labels)...)
	}
	if !m.Managed.Equal(prior.Managed) {
		diags.Append(s.SetAttribute(ctx, path.Root("managed"), m.Managed)...)
	}
	if !m.Running.Equal(prior.Running) {
		diags.Append(s.SetAttribute(ctx, path.Root("running"), m.Running)...)
	}
	if !m.HostStatus.Equal(prior.HostStatus) {
		diags.Append(s.SetAttribute(ctx, path.Root("host_status"), m.HostStatus)...)
	}
	return diags
}
