package provider

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Hosts that only GSE 2.0 can address (an agent id, an IPv6 address) need
// gateway_url. Whether it is set is known once the provider is configured,
// which Terraform does after validating the resources' configuration: the
// check runs in ModifyPlan (plan time, with the configured client) and again
// before any call, for a plan made while the provider configuration was unknown.

// needsGateway refuses hosts the client cannot address: agent ids and IPv6
// addresses, when it speaks GSE 1.0 through ESB. A nil client (not
// configured yet) refuses nothing.
func needsGateway(c *gse.Client, hosts []gse.Host) error {
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

// reachable is what every apply checks before its first call: that the
// client can address hosts (needsGateway), and, through the gateway, that
// their agents run (agentsUp), so an operation fails at once naming a host
// instead of polling 115 until the deadline.
func reachable(ctx context.Context, c *gse.Client, hosts []gse.Host) error {
	if err := needsGateway(c, hosts); err != nil {
		return err
	}
	return agentsUp(ctx, c, hosts)
}

// isIPv6 reports whether ip is an IPv6 address that is not an IPv4-mapped one.
func isIPv6(ip string) bool {
	a, err := netip.ParseAddr(ip)
	return err == nil && a.Is6() && !a.Is4In6()
}

// planNeedsGateway is needsGateway at plan time for the hosts list or set at
// at in plan; hosts not yet known are checked at apply.
func planNeedsGateway(ctx context.Context, c *gse.Client, plan tfsdk.Plan, at path.Path, diags *diag.Diagnostics) {
	if c == nil || c.Gateway() || plan.Raw.IsNull() {
		return
	}
	var v attr.Value
	if diags.Append(plan.GetAttribute(ctx, at, &v)...); diags.HasError() {
		return
	}
	var els []attr.Value
	switch l := v.(type) {
	case types.List:
		els = l.Elements()
	case types.Set:
		els = l.Elements()
	}
	hosts := make([]gse.Host, 0, len(els))
	for _, el := range els {
		if h, ok := hostFields(el); ok {
			hosts = append(hosts, gse.Host{IP: unmapIP(h.ip), BkCloudID: h.cloud, AgentID: h.agentID})
		}
	}
	if err := needsGateway(c, hosts); err != nil {
		diags.AddAttributeError(at, "Hosts that need gateway_url", err.Error()+".")
	}
}

// needsESB reports, for a JOB resource (what) used with a provider that has
// only gateway_url, that the JOB APIs need endpoint: ESB serves them, the
// GSE gateway does not.
func needsESB(c *gse.Client, what string, diags *diag.Diagnostics) {
	if c != nil && !c.ESB() {
		diags.AddError("JOB needs the provider's endpoint",
			what+" calls the JOB platform's APIs, which BlueKing ESB serves; gateway_url serves only GSE's process APIs. "+
				"Set endpoint in the provider block (or BK_COMPONENT_API_URL) to the ESB root, such as https://paas.example.com.")
	}
}
