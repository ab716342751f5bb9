package packed

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The server passes a stored state of the current version through itself
// exactly as the framework does: for every resource type, states with random
// values (nulls, empty and full collections, packed attributes), an attribute
// the schema no longer has and one it gained, the same value and no
// diagnostics either way.
func TestUpgradePassthroughIsTheFrameworks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newTestServer(t)
	schemas, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(25, 1))
	for typeName, sch := range schemas.ResourceSchemas {
		typ, _ := sch.ValueType().(tftypes.Object)
		for i := range 40 {
			obj, _ := randomJSON(r, typ, 0).(map[string]any)
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
	s := newTestServer(t)
	for name, req := range map[string]*tfprotov6.UpgradeResourceStateRequest{
		"another version": {TypeName: "test_thing", Version: 7, RawState: &tfprotov6.RawState{JSON: []byte(`{"id":"a"}`)}},
		"not an object":   {TypeName: "test_thing", RawState: &tfprotov6.RawState{JSON: []byte(`[1]`)}},
		"a wrong type":    {TypeName: "test_thing", RawState: &tfprotov6.RawState{JSON: []byte(`{"nested":"x"}`)}},
		"unknown type":    {TypeName: "test_nothing", RawState: &tfprotov6.RawState{JSON: []byte(`{}`)}},
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

// randomJSON is a known value of typ as a state file holds it: attributes
// null one time in three, collections of up to three elements (distinct in a
// set).
func randomJSON(r *rand.Rand, typ tftypes.Type, depth int) any {
	if depth > 0 && r.IntN(3) == 0 {
		return nil
	}
	switch t := typ.(type) {
	case tftypes.Object:
		out := map[string]any{}
		for name, at := range t.AttributeTypes {
			out[name] = randomJSON(r, at, depth+1)
		}
		return out
	case tftypes.List:
		out := []any{}
		for range r.IntN(4) {
			out = append(out, randomJSON(r, t.ElementType, depth+1))
		}
		return out
	case tftypes.Set:
		out := []any{}
		for i := range r.IntN(2) {
			out = append(out, distinctJSON(t.ElementType, i))
		}
		return out
	case tftypes.Map:
		out := map[string]any{}
		for i := range r.IntN(4) {
			out[fmt.Sprintf("k%d", i)] = randomJSON(r, t.ElementType, depth+1)
		}
		return out
	}
	switch {
	case typ.Is(tftypes.Number):
		return json.Number(strconv.FormatFloat(float64(r.IntN(1<<40))/float64(1+r.IntN(8)), 'g', -1, 64))
	case typ.Is(tftypes.Bool):
		return r.IntN(2) == 0
	}
	return fmt.Sprintf("s%d ü\"", r.IntN(1000))
}

// distinctJSON is a value of typ that differs for each i.
func distinctJSON(typ tftypes.Type, i int) any {
	switch {
	case typ.Is(tftypes.Number):
		return json.Number(strconv.Itoa(i))
	case typ.Is(tftypes.String):
		return strconv.Itoa(i)
	}
	return randomJSON(rand.New(rand.NewPCG(uint64(i), 0)), typ, 0)
}
