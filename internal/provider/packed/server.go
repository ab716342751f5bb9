package packed

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// NewProtocol6 serves p as providerserver.NewProtocol6WithError does, with
// the attributes its resources declare packed (Of) packed for the framework
// (server): hand it to tf6server.Serve, or to ProtoV6ProviderFactories in
// tests.
func NewProtocol6(p provider.Provider, opts ...Option) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		s, err := providerserver.NewProtocol6WithError(p)()
		if err != nil {
			return nil, err
		}
		fs, ok := s.(frameworkServer)
		if !ok {
			return nil, fmt.Errorf("the framework's server %T lacks list resource, action or state store RPCs", s)
		}
		ctx := context.Background()
		srv := server{frameworkServer: fs, packed: findAttrs(ctx, p), dataPacked: findDataAttrs(ctx, p), states: &stateTypes{}, generators: findConfigGenerators(ctx, p)}
		for _, o := range opts {
			o(&srv)
		}
		return srv, nil
	}
}

// frameworkServer is every family of RPCs the framework's server answers.
// server must expose them all: tf6server looks for list resources,
// actions and state stores by the methods of the server it is given.
type frameworkServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	tfprotov6.ActionServer
	tfprotov6.StateStoreServer
}

// server tells Terraform the type of each packed attribute (Type), and packs
// and unpacks its values on the way to and from the framework. It passes
// stored states of the current version through itself (upgrade.go), and
// sends numbers on refresh and in data sources as text (numbers.go). Every RPC whose values may
// hold a resource's attributes is one of its methods; the others pass
// through the embedded framework server (tripwire_test.go keeps that so).
type server struct {
	frameworkServer
	packed     attrsByType
	dataPacked attrsByType // the data sources' packed attributes, which only the provider writes
	states     *stateTypes
	generators map[string]ConfigGenerator // by resource type
	quiet      bool                       // the framework gets contexts without loggers (Quiet)
}

// ConfigGenerator is a resource that amends the configuration the framework
// generates for an imported object (GenerateResourceConfig, Terraform 1.14+):
// v is that configuration as Terraform sees it, packed attributes unpacked.
type ConfigGenerator interface {
	GeneratedConfig(ctx context.Context, v tftypes.Value) (tftypes.Value, error)
}

// findConfigGenerators are the resources of p that are ConfigGenerators.
func findConfigGenerators(ctx context.Context, p provider.Provider) map[string]ConfigGenerator {
	var meta provider.MetadataResponse
	p.Metadata(ctx, provider.MetadataRequest{}, &meta)
	out := map[string]ConfigGenerator{}
	for _, f := range p.Resources(ctx) {
		r := f()
		if g, ok := r.(ConfigGenerator); ok {
			var name resource.MetadataResponse
			r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: meta.TypeName}, &name)
			out[name.TypeName] = g
		}
	}
	return out
}

// withGenerateResourceConfig announces the GenerateResourceConfig RPC, which
// terraform-plugin-framework v1.19 serves but does not announce
// (internal/toproto6 ServerCapabilities drops it): without it Terraform 1.14+
// generates the configuration of an imported object itself, and no
// ConfigGenerator is asked.
func withGenerateResourceConfig(c *tfprotov6.ServerCapabilities) *tfprotov6.ServerCapabilities {
	if c == nil {
		c = &tfprotov6.ServerCapabilities{}
	}
	c.GenerateResourceConfig = true
	return c
}

func (s server) GetMetadata(ctx context.Context, req *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	resp, err := s.frameworkServer.GetMetadata(ctx, req)
	if err == nil && resp != nil {
		resp.ServerCapabilities = withGenerateResourceConfig(resp.ServerCapabilities)
	}
	return resp, err
}

func (s server) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	resp, err := s.frameworkServer.GetProviderSchema(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	resp.ServerCapabilities = withGenerateResourceConfig(resp.ServerCapabilities)
	unpackSchemas(ctx, s.packed, resp.ResourceSchemas)
	unpackSchemas(ctx, s.dataPacked, resp.DataSourceSchemas)
	return resp, nil
}

// unpackSchemas gives the packed attributes of schemas the types Terraform sees.
func unpackSchemas(ctx context.Context, packed attrsByType, schemas map[string]*tfprotov6.Schema) {
	for typeName, sch := range schemas {
		if sch == nil || sch.Block == nil {
			continue
		}
		for _, a := range sch.Block.Attributes {
			if pt := packed[typeName][a.Name]; pt != nil {
				pt.UnpackedSchema(ctx, a)
			}
		}
	}
}

func (s server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if err := s.packed.pack(req.TypeName, &req.Config); err != nil {
		return nil, err
	}
	return s.frameworkServer.ValidateResourceConfig(s.forFramework(ctx), req)
}

func (s server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	if resp, ok := s.states.passthrough(ctx, s, req); ok {
		return resp, nil
	}
	return s.upgradeByFramework(ctx, req)
}

// upgradeByFramework is the framework's answer to req, packed attributes included.
func (s server) upgradeByFramework(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	return s.packed.upgradeState(s.forFramework(ctx), req, s.frameworkServer.UpgradeResourceState)
}

func (s server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if err := s.packed.pack(req.TypeName, &req.CurrentState); err != nil {
		return nil, err
	}
	resp, err := s.frameworkServer.ReadResource(s.forFramework(ctx), req)
	if err != nil || resp == nil {
		return resp, err
	}
	if err := s.packed.unpack(req.TypeName, &resp.NewState); err != nil {
		return nil, err
	}
	return resp, numbersAsText(resp.NewState)
}

// ReadDataSource unpacks a data source's packed attributes (computed: the
// configuration holds them null, which needs no packing), and sends its
// numbers as text too: on Terraform 1.10
// to 1.14 a root output built from one compared unequal to the same output
// read from the state file (reflect.DeepEqual in sameRootOutputValues of
// hashicorp/terraform internal/states/state_equal.go), so `plan -refresh-only
// -detailed-exitcode` exited 2 while printing "No changes".
func (s server) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := s.frameworkServer.ReadDataSource(s.forFramework(ctx), req)
	if err != nil || resp == nil {
		return resp, err
	}
	if err := s.dataPacked.unpack(req.TypeName, &resp.State); err != nil {
		return nil, err
	}
	return resp, numbersAsText(resp.State)
}

func (s server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	for _, dv := range []**tfprotov6.DynamicValue{&req.Config, &req.PriorState, &req.ProposedNewState} {
		if err := s.packed.pack(req.TypeName, dv); err != nil {
			return nil, err
		}
	}
	resp, err := s.frameworkServer.PlanResourceChange(s.forFramework(ctx), req)
	if err != nil || resp == nil {
		return resp, err
	}
	return resp, s.packed.unpack(req.TypeName, &resp.PlannedState)
}

func (s server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	for _, dv := range []**tfprotov6.DynamicValue{&req.Config, &req.PriorState, &req.PlannedState} {
		if err := s.packed.pack(req.TypeName, dv); err != nil {
			return nil, err
		}
	}
	resp, err := s.frameworkServer.ApplyResourceChange(s.forFramework(ctx), req)
	if err != nil || resp == nil {
		return resp, err
	}
	return resp, s.packed.unpack(req.TypeName, &resp.NewState)
}

func (s server) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	resp, err := s.frameworkServer.ImportResourceState(s.forFramework(ctx), req)
	if err != nil || resp == nil {
		return resp, err
	}
	for _, r := range resp.ImportedResources {
		if err := s.packed.unpack(r.TypeName, &r.State); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

func (s server) MoveResourceState(ctx context.Context, req *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	resp, err := s.frameworkServer.MoveResourceState(s.forFramework(ctx), req)
	if err != nil || resp == nil {
		return resp, err
	}
	return resp, s.packed.unpack(req.TargetTypeName, &resp.TargetState)
}

func (s server) GenerateResourceConfig(ctx context.Context, req *tfprotov6.GenerateResourceConfigRequest) (*tfprotov6.GenerateResourceConfigResponse, error) {
	if err := s.packed.pack(req.TypeName, &req.State); err != nil {
		return nil, err
	}
	resp, err := s.frameworkServer.GenerateResourceConfig(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	if err := s.packed.unpack(req.TypeName, &resp.Config); err != nil {
		return nil, err
	}
	g := s.generators[req.TypeName]
	if g == nil || resp.Config == nil {
		return resp, nil
	}
	sch, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	typ := sch.ResourceSchemas[req.TypeName].ValueType()
	v, err := resp.Config.Unmarshal(typ)
	if err == nil {
		v, err = g.GeneratedConfig(ctx, v)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: generated configuration: %w", req.TypeName, err)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	resp.Config = &dv
	return resp, err
}

func (s server) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	stream, err := s.frameworkServer.ListResource(ctx, req)
	if err != nil || stream == nil || stream.Results == nil {
		return stream, err
	}
	results := stream.Results
	stream.Results = func(yield func(tfprotov6.ListResourceResult) bool) {
		for r := range results {
			if err := s.packed.unpack(req.TypeName, &r.Resource); err != nil {
				r.Diagnostics = append(r.Diagnostics, &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError,
					Summary: "Invalid listed resource", Detail: err.Error()})
			}
			if !yield(r) {
				return
			}
		}
	}
	return stream, nil
}
