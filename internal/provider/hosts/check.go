package hosts

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The one plan-time check of host lists and sets (checkHosts), and the
// validator of the host sets and lists other than gse_managed_process.hosts.

// maxAgentID is the longest agent id GSE takes.
const maxAgentID = 64

// CheckAgentID says what is wrong with an agent id, or "".
func CheckAgentID(id string) string {
	if len(id) > maxAgentID {
		return fmt.Sprintf("is %d characters long; GSE takes at most %d", len(id), maxAgentID)
	}
	if _, _, ok := CloudIPAgent(id); ok {
		return ""
	}
	if len(id) == 36 && strings.Trim(strings.ToLower(id), "0123456789abcdef") == "" {
		return ""
	}
	return "is neither 36 hex characters (such as 0200000007525400f355781710390005465c) nor {bk_cloud_id}:{ip} (such as 0:10.0.0.1 or 0:2001:db8::1, without a zone)"
}

// checkHosts is the one check of host objects (ip, bk_cloud_id and, where the
// schema has them, bk_supplier_id and agent_id), shared by every list or set
// of hosts: a host by agent_id (36 hex characters or {bk_cloud_id}:{ip}, at
// most 64) or by ip and bk_cloud_id, never both; each ip an IPv4 or IPv6
// address without a zone (GSE and JOB address hosts without one), ids 0 or
// more, and no host twice in any spelling or form (gse.Host.Key). at is
// the path of an element's attribute; in a set it is the set's own path (an
// element's path there is its whole value), and messages name the attribute.
func checkHosts(list path.Path, els []attr.Value, at func(i int, name string) path.Path, diags *diag.Diagnostics) {
	subject := func(i int, name string) string {
		if p := at(i, name); !p.Equal(list) {
			return p.String()
		}
		return list.String() + ": " + name
	}
	seen := make(map[string]bool, len(els))
	for i, el := range els {
		obj, _ := el.(types.Object)
		if obj.IsUnknown() || obj.IsNull() {
			continue
		}
		a := obj.Attributes()
		for _, id := range []struct{ name, hint string }{{"bk_cloud_id", " (0 is the default cloud area)"}, {"bk_supplier_id", ""}} {
			if v, _ := a[id.name].(types.Int64); !v.IsUnknown() && !v.IsNull() && v.ValueInt64() < 0 {
				diags.AddAttributeError(at(i, id.name), "Invalid "+id.name,
					fmt.Sprintf("%s must be 0 or more%s, got %d.", subject(i, id.name), id.hint, v.ValueInt64()))
			}
		}
		if _, byAgent := a["agent_id"]; byAgent && !checkHostForm(a, i, at, subject, diags) {
			continue
		}
		h, ok := Fields(el)
		if !ok {
			continue
		}
		if h.AgentID == "" {
			addr, err := netip.ParseAddr(h.IP)
			switch {
			case err != nil:
				diags.AddAttributeError(at(i, "ip"), "Invalid ip",
					fmt.Sprintf("%s must be an IPv4 or IPv6 address without a zone, such as 10.0.0.1 or 2001:db8::1; %q is not an IPv4 or IPv6 address.", subject(i, "ip"), h.IP))
				continue
			case addr.Zone() != "":
				diags.AddAttributeError(at(i, "ip"), "Invalid ip",
					fmt.Sprintf("%s must be an IPv4 or IPv6 address without a zone; %q has a zone, write %s.", subject(i, "ip"), h.IP, addr.WithZone("")))
				continue
			}
		}
		id := h.expand().Key()
		if seen[id] {
			name, host := "ip", h.expand().String()
			if h.AgentID != "" {
				name = "agent_id"
			}
			diags.AddAttributeError(at(i, name), "Duplicate host",
				fmt.Sprintf("%s lists %s more than once (the same host in any spelling or form: 10.0.0.1, ::ffff:10.0.0.1 and agent_id 0:10.0.0.1 in cloud area 0 are one); "+
					"each host may appear once.", list, host))
		}
		seen[id] = true
	}
}

// checkHostForm checks that a host of a schema with agent_id is given by
// exactly one of agent_id or ip with bk_cloud_id, and its agent id. It
// reports whether the host is worth checking further.
func checkHostForm(a map[string]attr.Value, i int, at func(int, string) path.Path, subject func(int, string) string, diags *diag.Diagnostics) bool {
	ipV, _ := a["ip"].(types.String)
	cloudV, _ := a["bk_cloud_id"].(types.Int64)
	agentV, _ := a["agent_id"].(types.String)
	const forms = "a host is given either by agent_id (36 hex characters, or {bk_cloud_id}:{ip}) or by ip and bk_cloud_id"
	switch {
	case agentV.IsUnknown():
		return false
	case !agentV.IsNull():
		if !ipV.IsNull() || !cloudV.IsNull() {
			diags.AddAttributeError(at(i, "agent_id"), "Host given twice",
				fmt.Sprintf("%s is set together with ip or bk_cloud_id; %s, not both. Remove ip and bk_cloud_id, or agent_id.", subject(i, "agent_id"), forms))
			return false
		}
		if msg := CheckAgentID(agentV.ValueString()); msg != "" {
			diags.AddAttributeError(at(i, "agent_id"), "Invalid agent_id",
				fmt.Sprintf("%s %q %s.", subject(i, "agent_id"), agentV.ValueString(), msg))
			return false
		}
	case ipV.IsNull() && cloudV.IsNull():
		diags.AddAttributeError(at(i, "ip"), "Host without address",
			fmt.Sprintf("%s is unset and so is %s; %s.", subject(i, "ip"), subject(i, "agent_id"), forms))
		return false
	case ipV.IsNull() != cloudV.IsNull():
		missing := "ip"
		if cloudV.IsNull() {
			missing = "bk_cloud_id"
		}
		diags.AddAttributeError(at(i, missing), "Incomplete host",
			fmt.Sprintf("%s is unset; %s (0 is the default cloud area).", subject(i, missing), forms))
		return false
	}
	return true
}

// refsValidator checks a list or set of hosts by ip and bk_cloud_id (an
// ip_list, or the hosts of gse_process_operation) with checkHosts, the check
// of every host list.
type refsValidator struct{}

func (refsValidator) Description(context.Context) string {
	return "every ip is an IPv4 or IPv6 address without zone, bk_cloud_id is 0 or more, and no host appears twice"
}

func (v refsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v refsValidator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	checkHosts(req.Path, req.ConfigValue.Elements(), func(i int, name string) path.Path { return req.Path.AtListIndex(i).AtName(name) }, &resp.Diagnostics)
}

func (v refsValidator) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	// A set element's path is its whole value: the message names the IP instead.
	checkHosts(req.Path, req.ConfigValue.Elements(), func(int, string) path.Path { return req.Path }, &resp.Diagnostics)
}
