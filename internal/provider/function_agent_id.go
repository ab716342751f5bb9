package provider

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

var _ function.Function = agentIDFunction{}

// agentIDFunction builds the agent id GSE uses for a host without its own
// agent id: "{bk_cloud_id}:{ip}".
type agentIDFunction struct{}

func newAgentIDFunction() function.Function { return agentIDFunction{} }

func (agentIDFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "agent_id"
}

func (agentIDFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "The agent id of a host: {bk_cloud_id}:{ip}",
		MarkdownDescription: "Returns the agent id GSE gives a host addressed by cloud area and IP, `{bk_cloud_id}:{ip}` " +
			"(the `bk_agent_id` of status entries for agents without a generated id). The IP is written in canonical form: " +
			"an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) becomes the IPv4 address, as the resources send it, and IPv6 is lower-case and compressed.",
		Parameters: []function.Parameter{
			function.Int64Parameter{Name: "bk_cloud_id", MarkdownDescription: "Cloud area id of the host, 0 or more (0 is the default area)."},
			function.StringParameter{Name: "ip", MarkdownDescription: "IPv4 or IPv6 address of the host, without a zone."},
		},
		Return: function.StringReturn{},
	}
}

func (agentIDFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var cloud int64
	var ip string
	if resp.Error = req.Arguments.Get(ctx, &cloud, &ip); resp.Error != nil {
		return
	}
	if cloud < 0 {
		resp.Error = function.NewArgumentFuncError(0, fmt.Sprintf("must be 0 or more, got %d", cloud))
		return
	}
	a, err := netip.ParseAddr(ip)
	if err != nil || a.Zone() != "" {
		resp.Error = function.NewArgumentFuncError(1, fmt.Sprintf("must be an IPv4 or IPv6 address without a zone, such as 10.0.0.1 or 2001:db8::1; got %q", ip))
		return
	}
	resp.Error = resp.Result.Set(ctx, gse.Host{IP: a.Unmap().String(), BkCloudID: cloud}.Address())
}
