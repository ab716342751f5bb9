package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"
)

var _ provider.ProviderWithFunctions = (*gseProvider)(nil)

// Functions need Terraform 1.8 or later; older CLIs ignore them.
func (p *gseProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{newAgentIDFunction, newParseStatusContentFunction}
}

var _ provider.ProviderWithListResources = (*gseProvider)(nil)

// ListResources serve `terraform query` (Terraform 1.14+).
func (p *gseProvider) ListResources(context.Context) []func() list.ListResource {
	return []func() list.ListResource{newManagedProcessList}
}

var _ provider.ProviderWithActions = (*gseProvider)(nil)

// Actions run with `terraform apply -invoke` or from action_trigger (Terraform 1.14+).
func (p *gseProvider) Actions(context.Context) []func() action.Action {
	return []func() action.Action{newProcessOperationAction}
}
