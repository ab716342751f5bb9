package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// packedAttrs are, per resource type, the attributes the framework holds
// packed (hostListType, see common_hosts_packed.go). Values travel between
// Terraform and the framework as MessagePack; packing and unpacking cut one
// attribute's bytes out of an object and put them back, without decoding the
// rest.
type packedAttrs map[string][]string

// findPackedAttrs reads them from the resources' schemas, so no resource or
// attribute name is repeated here.
func findPackedAttrs(ctx context.Context, p provider.Provider) packedAttrs {
	var meta provider.MetadataResponse
	p.Metadata(ctx, provider.MetadataRequest{}, &meta)
	out := packedAttrs{}
	for _, f := range p.Resources(ctx) {
		r := f()
		var name resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: meta.TypeName}, &name)
		var s resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &s)
		for attrName, a := range s.Schema.Attributes {
			if sa, ok := a.(schema.StringAttribute); ok {
				if _, ok := sa.CustomType.(hostListType); ok {
					out[name.TypeName] = append(out[name.TypeName], attrName)
				}
			}
		}
	}
	return out
}

// pack turns the packed attributes of a value of typeName from Terraform into
// what the framework holds: each list becomes a string of its bytes.
func (pa packedAttrs) pack(typeName string, dv **tfprotov6.DynamicValue) error {
	return pa.rewrite(typeName, dv, func(_ string, v []byte) ([]byte, error) {
		switch c := v[0]; {
		case c == msgpcode.Nil:
			return v, nil
		case msgpcode.IsExt(c):
			return unknownValue, nil
		case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
			var buf bytes.Buffer
			err := msgpack.NewEncoder(&buf).EncodeString(string(v))
			return buf.Bytes(), err
		}
		return nil, fmt.Errorf("not a list (code %#x)", v[0])
	})
}

// unpack is the inverse of pack, for a value of typeName from the framework.
func (pa packedAttrs) unpack(typeName string, dv **tfprotov6.DynamicValue) error {
	return pa.rewrite(typeName, dv, func(_ string, v []byte) ([]byte, error) {
		switch c := v[0]; {
		case c == msgpcode.Nil:
			return v, nil
		case msgpcode.IsExt(c):
			return unknownValue, nil
		}
		s, err := msgpack.NewDecoder(bytes.NewReader(v)).DecodeString()
		return []byte(s), err
	})
}

// rewrite replaces, in the object *dv holds, the value of every packed
// attribute of typeName by f of its bytes. A null or unknown object, or one
// sent as JSON, stays as it is.
func (pa packedAttrs) rewrite(typeName string, dv **tfprotov6.DynamicValue, f func(name string, v []byte) ([]byte, error)) error {
	names := pa[typeName]
	if len(names) == 0 || *dv == nil || len((*dv).MsgPack) == 0 {
		return nil
	}
	b := (*dv).MsgPack
	r := bytes.NewReader(b)
	d := msgpack.NewDecoder(r)
	if c, err := d.PeekCode(); err != nil || c == msgpcode.Nil || msgpcode.IsExt(c) {
		return err
	}
	n, err := d.DecodeMapLen()
	if err != nil {
		return fmt.Errorf("%s: %w", typeName, err)
	}
	out := make([]byte, 0, len(b)+16)
	copied := 0
	for range n {
		k, err := d.DecodeString()
		if err != nil {
			return fmt.Errorf("%s: %w", typeName, err)
		}
		start := len(b) - r.Len()
		if err := d.Skip(); err != nil {
			return fmt.Errorf("%s.%s: %w", typeName, k, err)
		}
		if !contains(names, k) {
			continue
		}
		end := len(b) - r.Len()
		v, err := f(k, b[start:end])
		if err != nil {
			return fmt.Errorf("%s.%s: %w", typeName, k, err)
		}
		out = append(append(out, b[copied:start]...), v...)
		copied = end
	}
	*dv = &tfprotov6.DynamicValue{MsgPack: append(out, b[copied:]...)}
	return nil
}

func contains(names []string, k string) bool {
	for _, n := range names {
		if n == k {
			return true
		}
	}
	return false
}

// upgradeState handles the one request Terraform sends as JSON, a stored state
// to upgrade: the framework gets the packed attributes null, and its answer
// gets them back from the JSON, as MessagePack lists.
func (pa packedAttrs) upgradeState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest,
	next func(context.Context, *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error)) (*tfprotov6.UpgradeResourceStateResponse, error) {
	names := pa[req.TypeName]
	if len(names) == 0 || req.RawState == nil || len(req.RawState.JSON) == 0 {
		return next(ctx, req)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(req.RawState.JSON, &obj); err != nil {
		return next(ctx, req) // the framework reports it
	}
	lists := map[string][]byte{}
	for _, name := range names {
		raw, ok := obj[name]
		if !ok {
			continue
		}
		hosts, err := hostsFromJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("%s.%s in the stored state: %w", req.TypeName, name, err)
		}
		lists[name] = hosts
		obj[name] = json.RawMessage("null")
	}
	stripped, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	inner := *req
	inner.RawState = &tfprotov6.RawState{JSON: stripped}
	resp, err := next(ctx, &inner)
	if err != nil || resp == nil || resp.UpgradedState == nil {
		return resp, err
	}
	err = pa.rewrite(req.TypeName, &resp.UpgradedState, func(name string, v []byte) ([]byte, error) {
		if l, ok := lists[name]; ok {
			return l, nil
		}
		return v, nil // absent from the JSON: null
	})
	return resp, err
}

// hostsFromJSON encodes a host list of a stored state as MessagePack.
func hostsFromJSON(raw json.RawMessage) ([]byte, error) {
	if string(raw) == "null" {
		return []byte{msgpcode.Nil}, nil
	}
	var elems []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, err
	}
	hosts := make([]hostModel, len(elems))
	for i, el := range elems {
		for _, a := range hostElement {
			v, ok := el[a.name]
			if !ok || string(v) == "null" {
				continue
			}
			var err error
			switch f := a.field(&hosts[i]).(type) {
			case *types.String:
				var s string
				err = json.Unmarshal(v, &s)
				*f = types.StringValue(s)
			case *types.Int64:
				var n int64
				err = json.Unmarshal(v, &n)
				*f = types.Int64Value(n)
			}
			if err != nil {
				return nil, fmt.Errorf("[%d].%s: %w", i, a.name, err)
			}
		}
	}
	return encodeHosts(hosts, nil), nil
}
