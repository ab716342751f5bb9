package main

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// withoutAPI wraps the provider's server s in one that does no API work for
// its resources.
func withoutAPI(s tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	return &noAPI{ProviderServer: s, types: sync.OnceValues(func() (map[string]tftypes.Type, error) { return resourceTypes(s) })}
}

// noAPI answers an apply with the planned state, its unknowns made known,
// and a refresh with the state as it was.
type noAPI struct {
	tfprotov6.ProviderServer
	// types are each resource's value type, as Terraform sees it, read from
	// the schema once, by whichever apply comes first: Terraform applies
	// resources concurrently, and may never ask for the schema in the
	// process that applies (GetProviderSchemaOptional).
	types func() (map[string]tftypes.Type, error)
}

// resourceTypes reads the value type of each resource from the schema of s.
func resourceTypes(s tfprotov6.ProviderServer) (map[string]tftypes.Type, error) {
	resp, err := s.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	types := map[string]tftypes.Type{}
	for name, schema := range resp.ResourceSchemas {
		types[name] = schema.ValueType()
	}
	return types, nil
}

// typeOf is the value type of a resource.
func (s *noAPI) typeOf(name string) (tftypes.Type, error) {
	types, err := s.types()
	if err != nil {
		return nil, err
	}
	if t, ok := types[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("no resource type %q", name)
}

func (s *noAPI) ReadResource(_ context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private}, nil
}

func (s *noAPI) ApplyResourceChange(_ context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	typ, err := s.typeOf(req.TypeName)
	if err != nil {
		return nil, err
	}
	planned, err := req.PlannedState.Unmarshal(typ)
	if err != nil {
		return nil, err
	}
	if planned, err = withHostStatus(planned); err != nil {
		return nil, err
	}
	known, err := tftypes.Transform(planned, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		return zero(v.Type()), nil
	})
	if err != nil {
		return nil, err
	}
	state, err := tfprotov6.NewDynamicValue(typ, known)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ApplyResourceChangeResponse{NewState: &state, Private: req.PlannedPrivate}, nil
}

// withHostStatus fills an unknown host_status as an apply that starts the
// process on every host does: an entry per host of hosts, running and hosted,
// keyed as gse_managed_process keys them. Left empty, the floor of a resource
// on 10,000 hosts would leave out what Terraform pays for 10,000 entries.
func withHostStatus(planned tftypes.Value) (tftypes.Value, error) {
	var attrs map[string]tftypes.Value
	if planned.IsNull() {
		return planned, nil // a delete
	}
	if err := planned.As(&attrs); err != nil {
		return planned, err
	}
	st, hostsValue := attrs["host_status"], attrs["hosts"]
	if st.IsKnown() || !hostsValue.IsFullyKnown() {
		return planned, nil
	}
	mapType, ok := st.Type().(tftypes.Map)
	if !ok {
		return planned, fmt.Errorf("host_status is a %v, not a map", st.Type())
	}
	var list []tftypes.Value
	if err := hostsValue.As(&list); err != nil {
		return planned, err
	}
	entries := make(map[string]tftypes.Value, len(list))
	for _, h := range list {
		var host struct {
			ip, agentID string
			cloud       big.Float
		}
		var fields map[string]tftypes.Value
		if err := h.As(&fields); err != nil {
			return planned, err
		}
		for name, target := range map[string]any{"ip": &host.ip, "agent_id": &host.agentID, "bk_cloud_id": &host.cloud} {
			if v, ok := fields[name]; ok && !v.IsNull() {
				if err := v.As(target); err != nil {
					return planned, err
				}
			}
		}
		cloud, _ := host.cloud.Int64()
		key := gse.Host{IP: host.ip, BkCloudID: cloud, AgentID: host.agentID}.Address()
		entries[key] = tftypes.NewValue(mapType.ElementType, map[string]tftypes.Value{
			"status": tftypes.NewValue(tftypes.String, "running"), "managed": tftypes.NewValue(tftypes.Bool, true),
		})
	}
	attrs["host_status"] = tftypes.NewValue(mapType, entries)
	return tftypes.NewValue(planned.Type(), attrs), nil
}

// zero is a known value of t: empty, zero or false, or an object of nulls.
func zero(t tftypes.Type) tftypes.Value {
	switch tt := t.(type) {
	case tftypes.Object:
		attrs := map[string]tftypes.Value{}
		for name, at := range tt.AttributeTypes {
			attrs[name] = tftypes.NewValue(at, nil)
		}
		return tftypes.NewValue(t, attrs)
	case tftypes.Map:
		return tftypes.NewValue(t, map[string]tftypes.Value{})
	case tftypes.List, tftypes.Set:
		return tftypes.NewValue(t, []tftypes.Value{})
	}
	switch {
	case t.Is(tftypes.String):
		return tftypes.NewValue(t, "")
	case t.Is(tftypes.Number):
		return tftypes.NewValue(t, new(big.Float))
	case t.Is(tftypes.Bool):
		return tftypes.NewValue(t, false)
	}
	return tftypes.NewValue(t, nil)
}
