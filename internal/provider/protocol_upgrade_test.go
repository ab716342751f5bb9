package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The provider passes a stored state of the current version through itself
// exactly as the framework does: for every resource type, states with random
// values (nulls, empty and full collections, packed attributes), an attribute
// the schema no longer has and one it gained, the same value and no
// diagnostics either way.
func TestUpgradePassthroughIsTheFrameworks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newPackedServer(t)
	schemas, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(25, 1))
	for typeName, sch := range schemas.ResourceSchemas {
		typ, _ := sch.ValueType().(tftypes.Object)
		for i := range 40 {
			obj, _ := benchJSON(randomValue(r, typ, 0)).(map[string]any)
			obj["attribute_of_an_older_schema"] = "dropped"
			for name := range typ.AttributeTypes {
				if i%4 == 0 && r.IntN(3) == 0 {
					delete(obj, name) // gained since: null
				}
			}
			raw, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			req := &tfprotov6.UpgradeResourceStateRequest{TypeName: typeName, Version: sch.Version, RawState: &tfprotov6.RawState{JSON: raw}}
			fast, ok := s.states.passthrough(ctx, s, req)
			if !ok {
				t.Fatalf("%s: no passthrough for %s", typeName, raw)
			}
			framework, err := s.upgradeByFramework(ctx, req)
			if err != nil || len(framework.Diagnostics) > 0 {
				t.Fatalf("%s: the framework: %v %v", typeName, err, framework.Diagnostics)
			}
			// The same value; not always the same bytes: tftypes encodes a
			// map's keys in Go's map order.
			got, err1 := fast.UpgradedState.Unmarshal(typ)
			want, err2 := framework.UpgradedState.Unmarshal(typ)
			if err1 != nil || err2 != nil || !got.Equal(want) {
				t.Fatalf("%s: state %s\npassed through as\n%v\nthe framework's\n%v", typeName, raw, got, want)
			}
		}
	}
}

// What the passthrough does not handle goes to the framework, which reports it.
func TestUpgradePassthroughLeavesTheRest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newPackedServer(t)
	for name, req := range map[string]*tfprotov6.UpgradeResourceStateRequest{
		"another version": {TypeName: "gse_managed_process", Version: 7, RawState: &tfprotov6.RawState{JSON: []byte(`{"id":"a"}`)}},
		"not an object":   {TypeName: "gse_managed_process", RawState: &tfprotov6.RawState{JSON: []byte(`[1]`)}},
		"a wrong type":    {TypeName: "gse_managed_process", RawState: &tfprotov6.RawState{JSON: []byte(`{"meta":"x"}`)}},
		"unknown type":    {TypeName: "gse_nothing", RawState: &tfprotov6.RawState{JSON: []byte(`{}`)}},
	} {
		if _, ok := s.states.passthrough(ctx, s, req); ok {
			t.Errorf("%s: passed through", name)
		}
		resp, err := s.UpgradeResourceState(ctx, req)
		if err != nil || len(resp.Diagnostics) == 0 {
			t.Errorf("%s: want the framework's error, got %v %v", name, err, resp)
		}
	}
}

func newPackedServer(t *testing.T) packedServer {
	t.Helper()
	server, err := NewProtocol6(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	s, ok := server.(packedServer)
	if !ok {
		t.Fatalf("%T", server)
	}
	return s
}

// randomValue is a known value of typ: attributes null one time in three,
// collections of up to three elements (distinct in a set).
func randomValue(r *rand.Rand, typ tftypes.Type, depth int) tftypes.Value {
	if depth > 0 && r.IntN(3) == 0 {
		return tftypes.NewValue(typ, nil)
	}
	switch t := typ.(type) {
	case tftypes.Object:
		attrs := map[string]tftypes.Value{}
		for name, at := range t.AttributeTypes {
			attrs[name] = randomValue(r, at, depth+1)
		}
		return tftypes.NewValue(t, attrs)
	case tftypes.List:
		elems := []tftypes.Value{}
		for range r.IntN(4) {
			elems = append(elems, randomValue(r, t.ElementType, depth+1))
		}
		return tftypes.NewValue(t, elems)
	case tftypes.Set:
		elems := []tftypes.Value{}
		for i := range r.IntN(2) {
			elems = append(elems, distinctValue(t.ElementType, i))
		}
		return tftypes.NewValue(t, elems)
	case tftypes.Map:
		elems := map[string]tftypes.Value{}
		for i := range r.IntN(4) {
			elems[fmt.Sprintf("k%d", i)] = randomValue(r, t.ElementType, depth+1)
		}
		return tftypes.NewValue(t, elems)
	}
	switch {
	case typ.Is(tftypes.Number):
		return tftypes.NewValue(typ, new(big.Float).SetFloat64(float64(r.IntN(1<<40))/float64(1+r.IntN(8))))
	case typ.Is(tftypes.Bool):
		return tftypes.NewValue(typ, r.IntN(2) == 0)
	}
	return tftypes.NewValue(typ, fmt.Sprintf("s%d ü\"", r.IntN(1000)))
}

// distinctValue is a value of typ that differs for each i.
func distinctValue(typ tftypes.Type, i int) tftypes.Value {
	switch {
	case typ.Is(tftypes.Number):
		return tftypes.NewValue(typ, big.NewFloat(float64(i)))
	case typ.Is(tftypes.String):
		return tftypes.NewValue(typ, fmt.Sprint(i))
	}
	return randomValue(rand.New(rand.NewPCG(uint64(i), 0)), typ, 0)
}
