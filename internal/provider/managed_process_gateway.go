package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// gse_managed_process through the GSE 2.0 gateway. GSE 2.0 has no register
// or unregister (the GSE 2.0 API gateway documents neither; an inference from every public caller): an
// operate carrying the full spec (op 0 or 3) creates the process, and a stop
// (op 1) or unhost (op 4) ends its life; the process record stays in GSE,
// stopped or unhosted, as no API removes it. Before acting on or trusting the
// status of a host, the provider asks list_agent_state: a host whose agent is
// not running answers 115 forever, and its process is absent from status reads.

// register makes the process exist on hosts with spec, and returns the hosts
// where it may exist, also after an error (never leave an orphan). Through
// ESB that is register_proc_info (converge then hosts and starts it). Through
// the gateway it is one operate with the spec: op 0 when running = true, else
// op 3; then, for managed = false, op 1 (running = false) or op 4, so the
// hosts are converged when it returns. Callers check agentsUp first.
func (r *managedProcessResource) register(ctx context.Context, meta gse.Meta, spec *gse.Spec, plan *managedProcessModel, hosts []gse.Host, pr *proven) ([]gse.Host, error) {
	if !r.client.Gateway() {
		done, err := r.client.Proc.RegisterProcInfo(ctx, meta, hosts, spec)
		if err != nil {
			done = mayExist(hosts, done, err)
		}
		return done, err
	}
	op := gse.OpHost
	if plan.Running.ValueBool() {
		op = gse.OpStart
	}
	if _, err := r.operate(ctx, meta, spec, op, hosts, pr); err != nil {
		return createdMayExist(hosts, err), err
	}
	var err error
	switch {
	case !plan.Running.IsNull() && !plan.Running.ValueBool():
		_, err = r.operate(ctx, meta, spec, gse.OpStop, hosts, pr)
	case !plan.Managed.ValueBool():
		_, err = r.operate(ctx, meta, spec, gse.OpUnhost, hosts, pr)
	}
	return hosts, err
}

// createdMayExist is where a failed creating operate may have left the
// process: every host but those GSE refused because their agent is unknown or
// abnormal (117) or the request was refused as a whole (by GSE, or by the
// gateway before GSE saw it). Any other per-host
// failure (a start command that failed) comes after the spec was taken.
func createdMayExist(hosts []gse.Host, err error) []gse.Host {
	var he *gse.HostsError
	var ae *gse.APIError
	switch {
	case errors.As(err, &he):
		var refused []gse.Host
		for _, f := range he.Failures {
			if f.Code == gse.HostAgentAbnormal {
				refused = append(refused, f.Host)
			}
		}
		return selectBy(hosts, gse.Host.Key, hostKeys(refused), false)
	case errors.As(err, &ae) && (ae.HTTPStatus == 200 || ae.GatewayRefused()), errors.As(err, new(*agentsDownError)):
		return nil
	}
	return hosts
}

// agentsDownError names the hosts whose GSE agent is not running.
type agentsDownError struct{ down []gse.AgentState }

func (e *agentsDownError) Error() string {
	names := make([]string, len(e.down))
	for i, a := range e.down {
		names[i] = fmt.Sprintf("agent_id %s (status_code %d, %s)", a.BkAgentID, a.StatusCode, agentStatusName(a.StatusCode))
	}
	return "list_agent_state: the GSE agent is not running on " + strings.Join(names, ", ") +
		". GSE would hold any operation on these hosts at 115 (pending) until the timeout, so none was sent. " +
		"Repair the agents (for example with bk-nodeman), or leave hosts that are not in the state yet out of hosts, then apply again."
}

// agentStatusName names list_agent_state's status_code.
func agentStatusName(code int) string {
	if n, ok := map[int]string{0: "init", 1: "starting", 2: "running", 3: "damaged", 4: "busy", 5: "upgrading", 6: "stopping", 7: "uninstalled", -1: "unknown"}[code]; ok {
		return n
	}
	return "unknown"
}

// downAgents reads the agents of hosts (gateway mode only; nil through ESB)
// and returns the state of those not running, by host identity (gse.Host.Key).
// An agent list_agent_state does not know is not reported: the status read
// will find nothing there.
func downAgents(ctx context.Context, c *gse.Client, hosts []gse.Host) (map[string]gse.AgentState, error) {
	if c == nil || !c.Gateway() || len(hosts) == 0 {
		return nil, nil
	}
	states, err := c.Cluster.ListAgentState(ctx, hosts)
	if err != nil {
		return nil, err
	}
	down := map[string]gse.AgentState{}
	for _, a := range states {
		if !a.Running() {
			down[gse.Host{AgentID: a.BkAgentID}.Key()] = a
		}
	}
	return down, nil
}

// upHosts is hosts without those whose agent is down: hosts itself when none is.
func upHosts(hosts []gse.Host, down map[string]gse.AgentState) []gse.Host {
	if len(down) == 0 {
		return hosts
	}
	return selectBy(hosts, gse.Host.Key, slices.Collect(maps.Keys(down)), false)
}

// agentsUp fails at once, naming them, when the agent of any of hosts is not
// running, instead of letting an operation poll 115 until the deadline.
func agentsUp(ctx context.Context, c *gse.Client, hosts []gse.Host) error {
	down, err := downAgents(ctx, c, hosts)
	if err != nil || len(down) == 0 {
		return err
	}
	e := &agentsDownError{}
	for _, h := range hosts {
		if a, ok := down[h.Key()]; ok {
			e.down = append(e.down, a)
		}
	}
	return e
}

// warnAgentsDown warns that hosts' agents are down, so their status is unknown
// and was left as it was: not drift, and not a reason to forget the host.
func warnAgentsDown(diags *diag.Diagnostics, what string, down map[string]gse.AgentState) {
	if len(down) == 0 {
		return
	}
	ids := make([]string, 0, len(down))
	for _, a := range down {
		ids = append(ids, fmt.Sprintf("%s (status_code %d, %s)", a.BkAgentID, a.StatusCode, agentStatusName(a.StatusCode)))
	}
	slices.Sort(ids)
	diags.AddWarning("GSE agents not running",
		fmt.Sprintf("The GSE agent is not running on %s, so the status of %s there is unknown. "+
			"These hosts were kept as they were in the state; an apply that operates on them fails until their agents run again "+
			"(repair them, for example with bk-nodeman).", strings.Join(ids, ", "), what))
}

// keepDownStatus carries the prior host_status of hosts whose agent is down
// into status: what GSE cannot say now is not drift.
func keepDownStatus(status, prior types.Map, hosts []hostModel, down map[string]gse.AgentState) types.Map {
	if len(down) == 0 {
		return status
	}
	elems := status.Elements()
	for _, h := range hosts {
		if _, isDown := down[h.api().Key()]; isDown {
			if old, ok := prior.Elements()[statusKey(h)]; ok {
				elems[statusKey(h)] = old
			}
		}
	}
	return types.MapValueMust(hostStatusType, elems)
}
