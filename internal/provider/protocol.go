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
	if sch := resp.ResourceSchemas["gse_managed_process"]; sch != nil && sch.Block != nil {
		for _, a := range sch.Block.Attributes {
			if a.Name == "hosts" {
				a.Type, a.NestedType = nil, hostsNestedType()
			}
		}
	}
	return resp, nil
}

// hostsNestedType is the element schema of gse_managed_process.hosts: the
// attributes of hostObjectType with their meaning.
func hostsNestedType() *tfprotov6.SchemaObject {
	// Every element attribute is optional: a host is ip + bk_cloud_id or
	// agent_id, which checkHosts enforces.
	attr := func(name string, typ tftypes.Type, desc string, computed bool) *tfprotov6.SchemaAttribute {
		return &tfprotov6.SchemaAttribute{Name: name, Type: typ, Description: desc, DescriptionKind: tfprotov6.StringKindMarkdown,
			Optional: true, Computed: computed}
	}
	return &tfprotov6.SchemaObject{Nesting: tfprotov6.SchemaObjectNestingModeList, Attributes: []*tfprotov6.SchemaAttribute{
		attr("agent_id", tftypes.String, hostAgentDesc, false),
		attr("bk_cloud_id", tftypes.Number, gseHostCloudDesc, false),
		attr("bk_supplier_id", tftypes.Number, hostSupplierDesc, true),
		attr("ip", tftypes.String, gseHostIPDesc+" `::ffff:10.0.0.1` is the same host as `10.0.0.1` and is sent to GSE as `10.0.0.1`.", false),
	}}
}
