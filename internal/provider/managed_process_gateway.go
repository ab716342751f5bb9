package provider

import (
	"context"
	"errors"

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
		return selectBy(hosts, gse.Host.Key, each(refused, gse.Host.Key), false)
	case errors.As(err, &ae) && (ae.HTTPStatus == 200 || ae.GatewayRefused()), errors.As(err, new(*agentsDownError)):
		return nil
	}
	return hosts
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
