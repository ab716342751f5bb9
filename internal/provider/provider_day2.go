package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"
)

var _ provider.ProviderWithFunctions = (*gseProvider)(nil)

// Functions need Terraform 1.8 or later; older CLIs ignore them.
func (p *gseProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{newAgentIDFunction, newParseStatusContentFunction}
}
