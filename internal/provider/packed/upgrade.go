package packed

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Terraform upgrades the stored state of every resource on every plan
// (UpgradeResourceState), and for a state of the schema's own version the
// framework passes it through: it reads the JSON with the schema's type,
// ignoring attributes the schema no longer has (fwserver.UpgradeResourceState,
// terraform-plugin-framework v1.19), and encodes the value again, first
// turning null list and set blocks into empty ones (toproto6.State,
// ReifyNullCollectionBlocks). passthrough does exactly that without the
// framework, for schemas without blocks, where that last step changes
// nothing: the framework's walk looks the schema up from its root for every
// value in the state, a sixth of a refresh's CPU. It also needs no packing: it
// reads the state with the type Terraform sees, and from JSON to MessagePack
// in one pass (statejson.go) where tftypes would take most of the rest.

// stateTypes are, per resource type, what passthrough needs of its schema as
// Terraform sees it; read from the first GetProviderSchema answer.
type stateTypes struct {
	once  sync.Once
	types map[string]stateType
}

type stateType struct {
	typ     tftypes.Type
	json    *jsonType // nil: the state is read through tftypes
	version int64
	blocks  bool // the schema has blocks: only the framework may pass its state through
}

func (st *stateTypes) load(ctx context.Context, s tfprotov6.ProviderServer) map[string]stateType {
	st.once.Do(func() {
		resp, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil || resp == nil {
			return
		}
		st.types = make(map[string]stateType, len(resp.ResourceSchemas))
		for name, sch := range resp.ResourceSchemas {
			if sch == nil || sch.Block == nil {
				continue
			}
			t := stateType{typ: sch.ValueType(), version: sch.Version, blocks: len(sch.Block.BlockTypes) > 0}
			t.json, _ = compileJSON(t.typ)
			st.types[name] = t
		}
	})
	return st.types
}

// passthrough answers req as the framework would when the state has the
// schema's version; false leaves it to the framework (another version, a
// schema with blocks, a state it cannot read: the framework reports why).
func (st *stateTypes) passthrough(ctx context.Context, s tfprotov6.ProviderServer, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, bool) {
	t, ok := st.load(ctx, s)[req.TypeName]
	if !ok || t.blocks || req.Version != t.version || req.RawState == nil || len(req.RawState.JSON) == 0 || len(req.RawState.Flatmap) > 0 {
		return nil, false
	}
	if t.json != nil {
		if b, err := t.json.msgpack(req.RawState.JSON); err == nil {
			return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &tfprotov6.DynamicValue{MsgPack: b}}, true
		}
	}
	v, err := req.RawState.UnmarshalWithOpts(t.typ, tfprotov6.UnmarshalOpts{ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}})
	if err != nil {
		return nil, false
	}
	dv, err := tfprotov6.NewDynamicValue(t.typ, v)
	if err != nil {
		return nil, false
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &dv}, true
}
