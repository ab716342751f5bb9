package packed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// attrsByType are, per resource type, the attributes the framework holds
// packed (Type). Values travel between Terraform
// and the framework as MessagePack; packing and unpacking cut one attribute's
// bytes out of an object and put them back, without decoding the rest.
type attrsByType map[string]map[string]Type

// findAttrs reads them from the resources' schemas, so no resource or
// attribute name is repeated anywhere.
func findAttrs(ctx context.Context, p provider.Provider) attrsByType {
	var meta provider.MetadataResponse
	p.Metadata(ctx, provider.MetadataRequest{}, &meta)
	out := attrsByType{}
	for _, f := range p.Resources(ctx) {
		r := f()
		var name resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: meta.TypeName}, &name)
		var s resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &s)
		addPacked(out, name.TypeName, s.Schema.Attributes)
	}
	return out
}

// findDataAttrs are the packed attributes of the data sources' schemas.
func findDataAttrs(ctx context.Context, p provider.Provider) attrsByType {
	var meta provider.MetadataResponse
	p.Metadata(ctx, provider.MetadataRequest{}, &meta)
	out := attrsByType{}
	for _, f := range p.DataSources(ctx) {
		d := f()
		var name datasource.MetadataResponse
		d.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: meta.TypeName}, &name)
		var s datasource.SchemaResponse
		d.Schema(ctx, datasource.SchemaRequest{}, &s)
		addPacked(out, name.TypeName, s.Schema.Attributes)
	}
	return out
}

// addPacked records the attributes of typeName whose type is packed (a
// string attribute's CustomType is its type).
func addPacked[A interface{ GetType() attr.Type }](pa attrsByType, typeName string, attrs map[string]A) {
	for name, a := range attrs {
		if pt, ok := a.GetType().(Type); ok {
			if pa[typeName] == nil {
				pa[typeName] = map[string]Type{}
			}
			pa[typeName][name] = pt
		}
	}
}

// pack turns the packed attributes of a value of typeName from Terraform into
// what the framework holds: each known value becomes a string of its bytes.
func (pa attrsByType) pack(typeName string, dv **tfprotov6.DynamicValue) error {
	return pa.rewrite(typeName, dv, knownOnly(func(v []byte) ([]byte, error) {
		var buf bytes.Buffer
		err := msgpack.NewEncoder(&buf).EncodeString(string(v))
		return buf.Bytes(), err
	}))
}

// unpack is the inverse of pack, for a value of typeName from the framework.
func (pa attrsByType) unpack(typeName string, dv **tfprotov6.DynamicValue) error {
	return pa.rewrite(typeName, dv, knownOnly(func(v []byte) ([]byte, error) {
		s, err := msgpack.NewDecoder(bytes.NewReader(v)).DecodeString()
		return []byte(s), err
	}))
}

// knownOnly applies f to a known value; a null stays null, and an unknown
// (refined or not) becomes a plain unknown, which any type may be.
func knownOnly(f func([]byte) ([]byte, error)) func(string, []byte) ([]byte, error) {
	return func(_ string, v []byte) ([]byte, error) {
		switch c := v[0]; {
		case c == msgpcode.Nil:
			return v, nil
		case msgpcode.IsExt(c):
			return unknownValue, nil
		}
		return f(v)
	}
}

// rewrite replaces, in the object *dv holds, the value of every packed
// attribute of typeName by f of its bytes. A null or unknown object, or one
// sent as JSON, stays as it is.
func (pa attrsByType) rewrite(typeName string, dv **tfprotov6.DynamicValue, f func(name string, v []byte) ([]byte, error)) error {
	attrs := pa[typeName]
	if len(attrs) == 0 || *dv == nil || len((*dv).MsgPack) == 0 {
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
		if attrs[k] == nil {
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

// upgradeState handles the one request Terraform sends as JSON, a stored state
// to upgrade: the framework gets the packed attributes null, and its answer
// gets them back from the JSON, as MessagePack.
func (pa attrsByType) upgradeState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest,
	next func(context.Context, *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error)) (*tfprotov6.UpgradeResourceStateResponse, error) {
	attrs := pa[req.TypeName]
	if len(attrs) == 0 || req.RawState == nil || len(req.RawState.JSON) == 0 {
		return next(ctx, req)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(req.RawState.JSON, &obj); err != nil {
		return next(ctx, req) // the framework reports it
	}
	values := map[string][]byte{}
	for name, pt := range attrs {
		raw, ok := obj[name]
		if !ok {
			continue
		}
		typ := pt.UnpackedType(ctx)
		v, err := (&tfprotov6.RawState{JSON: raw}).UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}})
		if err != nil {
			return nil, fmt.Errorf("%s.%s in the stored state: %w", req.TypeName, name, err)
		}
		dv, err := tfprotov6.NewDynamicValue(typ, v)
		if err != nil {
			return nil, fmt.Errorf("%s.%s in the stored state: %w", req.TypeName, name, err)
		}
		values[name] = dv.MsgPack
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
		if b, ok := values[name]; ok {
			return b, nil
		}
		return v, nil // absent from the JSON: null
	})
	return resp, err
}
