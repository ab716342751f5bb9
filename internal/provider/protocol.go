package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// NewProtocol6 serves p as providerserver.NewProtocol6WithError does, with
// gse_managed_process.hosts declared to Terraform as a nested attribute
// (nestedHosts).
func NewProtocol6(p provider.Provider) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		s, err := providerserver.NewProtocol6WithError(p)()
		if err != nil {
			return nil, err
		}
		fs, ok := s.(frameworkServer)
		if !ok {
			return nil, fmt.Errorf("the framework's server %T lacks list resource, action or state store RPCs", s)
		}
		return nestedHosts{fs}, nil
	}
}

// frameworkServer is every family of RPCs the framework's server answers.
// nestedHosts must expose them all: tf6server looks for list resources,
// actions and state stores by the methods of the server it is given.
type frameworkServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	tfprotov6.ActionServer
	tfprotov6.StateStoreServer
}

// nestedHosts tells Terraform that gse_managed_process.hosts is a list nested
// attribute (hostsNestedType), while the framework holds it as a plain list of
// the same objects (hostsSchema). A list of objects and a list nested
// attribute travel alike on the wire, so only the schema response changes.
// Terraform thereby keeps what a nested attribute gives it: optional element
// attributes, bk_supplier_id planned by the provider (computed), and the
// per-element documentation; the framework skips its per-element walk.
type nestedHosts struct{ frameworkServer }

func (s nestedHosts) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	resp, err := s.frameworkServer.GetProviderSchema(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	for _, sch := range resp.ResourceSchemas {
		if sch == nil || sch.Block == nil {
			continue
		}
		for _, a := range sch.Block.Attributes {
			if isHostsList(ctx, a) {
				a.Type, a.NestedType = nil, hostsNestedType(ctx)
			}
		}
	}
	return resp, nil
}

// isHostsList finds the attributes hostsSchema declared by their type, a list
// of hostObjectType, so no resource or attribute name is repeated here.
func isHostsList(ctx context.Context, a *tfprotov6.SchemaAttribute) bool {
	return a.Type != nil && a.Type.Equal(tftypes.List{ElementType: hostObjectType.TerraformType(ctx)})
}

// hostsNestedType is the element schema of gse_managed_process.hosts, built
// from hostElement as hostObjectType is.
func hostsNestedType(ctx context.Context) *tfprotov6.SchemaObject {
	obj := &tfprotov6.SchemaObject{Nesting: tfprotov6.SchemaObjectNestingModeList}
	for _, a := range hostElement {
		// Every element attribute is optional: a host is ip + bk_cloud_id or
		// agent_id, which checkHosts enforces.
		obj.Attributes = append(obj.Attributes, &tfprotov6.SchemaAttribute{Name: a.name, Type: a.typ.TerraformType(ctx), Description: a.desc,
			DescriptionKind: tfprotov6.StringKindMarkdown, Optional: true, Computed: a.computed})
	}
	return obj
}
