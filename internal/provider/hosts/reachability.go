package hosts

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// Hosts that only GSE 2.0 can address (an agent id, an IPv6 address) need
// gateway_url. Whether it is set is known once the provider is configured,
// which Terraform does after validating the resources' configuration: the
// check runs in ModifyPlan (plan time, with the configured client) and again
// before any call, for a plan made while the provider configuration was unknown.

// NeedsGateway refuses hosts the client cannot address: agent ids and IPv6
// addresses, when it speaks GSE 1.0 through ESB. A nil client (not
// configured yet) refuses nothing.
func NeedsGateway(c *gse.Client, hosts []gse.Host) error {
	if c == nil || c.Gateway() {
		return nil
	}
	var names []string
	for _, h := range hosts {
		if h.AgentID != "" || isIPv6(h.IP) {
			names = append(names, h.String())
		}
	}
	if len(names) == 0 {
		return nil
	}
	if len(names) > 5 {
		names = append(names[:5], fmt.Sprintf("%d more", len(names)-5))
	}
	return fmt.Errorf("hosts given by agent_id or by an IPv6 address need GSE 2.0 through the BlueKing API gateway, and gateway_url is not set: %s. "+
		"Set gateway_url in the provider block (or BKAPP_BK_GSE_APIGATEWAY), or give these hosts by IPv4 address and bk_cloud_id: "+
		"GSE 1.0 APIs through ESB address hosts by IPv4 only", strings.Join(names, ", "))
}

// Reachable is what every apply checks before its first call: that the
// client can address hosts (NeedsGateway), and, through the gateway, that
// their agents run (AgentsUp), so an operation fails at once naming a host
// instead of polling 115 until the deadline.
func Reachable(ctx context.Context, c *gse.Client, hosts []gse.Host) error {
	if err := NeedsGateway(c, hosts); err != nil {
		return err
	}
	return AgentsUp(ctx, c, hosts)
}

// isIPv6 reports whether ip is an IPv6 address that is not an IPv4-mapped one.
func isIPv6(ip string) bool {
	a, err := netip.ParseAddr(ip)
	return err == nil && a.Is6() && !a.Is4In6()
}

// PlanNeedsGateway is NeedsGateway at plan time for the hosts list or set at
// at in plan; hosts not yet known are checked at apply.
func PlanNeedsGateway(ctx context.Context, c *gse.Client, plan tfsdk.Plan, at path.Path, diags *diag.Diagnostics) {
	if c == nil || c.Gateway() || plan.Raw.IsNull() {
		return
	}
	var v attr.Value
	if diags.Append(plan.GetAttribute(ctx, at, &v)...); diags.HasError() {
		return
	}
	var els []attr.Value
	if l, ok := v.(plumbing.ElementsValue); ok {
		els = l.Elements()
	}
	hosts := make([]gse.Host, 0, len(els))
	for _, el := range els {
		if h, ok := Fields(el); ok {
			hosts = append(hosts, gse.Host{IP: unmapIP(h.IP), BkCloudID: h.cloud, AgentID: h.AgentID})
		}
	}
	if err := NeedsGateway(c, hosts); err != nil {
		diags.AddAttributeError(at, "Hosts that need gateway_url", err.Error()+".")
	}
}

// AgentsDownError names the hosts whose GSE agent is not running.
type AgentsDownError struct{ down []gse.AgentState }

func (e *AgentsDownError) Error() string {
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

// DownAgents reads the agents of hosts (gateway mode only; nil through ESB)
// and returns the state of those not running, by host identity (gse.Host.Key).
// An agent list_agent_state does not know is not reported: the status read
// will find nothing there.
func DownAgents(ctx context.Context, c *gse.Client, hosts []gse.Host) (map[string]gse.AgentState, error) {
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

// Up is hosts without those whose agent is down: hosts itself when none is.
func Up(hosts []gse.Host, down map[string]gse.AgentState) []gse.Host {
	if len(down) == 0 {
		return hosts
	}
	return plumbing.SelectBy(hosts, gse.Host.Key, slices.Collect(maps.Keys(down)), false)
}

// AgentsUp fails at once, naming them, when the agent of any of hosts is not
// running, instead of letting an operation poll 115 until the deadline.
func AgentsUp(ctx context.Context, c *gse.Client, hosts []gse.Host) error {
	down, err := DownAgents(ctx, c, hosts)
	if err != nil || len(down) == 0 {
		return err
	}
	e := &AgentsDownError{}
	for _, h := range hosts {
		if a, ok := down[h.Key()]; ok {
			e.down = append(e.down, a)
		}
	}
	return e
}

// WarnAgentsDown warns that hosts' agents are down, so their status is unknown
// and was left as it was: not drift, and not a reason to forget the host.
func WarnAgentsDown(diags *diag.Diagnostics, what string, down map[string]gse.AgentState) {
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
