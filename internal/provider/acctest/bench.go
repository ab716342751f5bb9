package acctest

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
)

// BenchServer is the provider's framework server, with the value type of the
// resource typeName.
func BenchServer(ctx context.Context, b testing.TB, typeName string) (tfprotov6.ProviderServer, tftypes.Object) {
	server, err := packed.NewProtocol6(provider.New("bench")())()
	if err != nil {
		b.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		b.Fatal(err)
	}
	typ, ok := schemas.ResourceSchemas[typeName].ValueType().(tftypes.Object)
	if !ok {
		b.Fatal("no object type")
	}
	return server, typ
}

// BenchValue builds a value of typ from Go values (maps for objects and maps,
// slices for lists and sets, tftypes.UnknownValue for an unknown); what v
// leaves out is null.
func BenchValue(typ tftypes.Type, v any) tftypes.Value {
	if v == nil || v == tftypes.UnknownValue {
		return tftypes.NewValue(typ, v)
	}
	switch t := typ.(type) {
	case tftypes.Object:
		m, _ := v.(map[string]any)
		attrs := map[string]tftypes.Value{}
		for name, at := range t.AttributeTypes {
			attrs[name] = BenchValue(at, m[name])
		}
		return tftypes.NewValue(t, attrs)
	case tftypes.List:
		var elems []tftypes.Value
		l, _ := v.([]any)
		for _, e := range l {
			elems = append(elems, BenchValue(t.ElementType, e))
		}
		return tftypes.NewValue(t, elems)
	case tftypes.Set:
		var elems []tftypes.Value
		l, _ := v.([]any)
		for _, e := range l {
			elems = append(elems, BenchValue(t.ElementType, e))
		}
		return tftypes.NewValue(t, elems)
	case tftypes.Map:
		elems := map[string]tftypes.Value{}
		m, _ := v.(map[string]any)
		for k, e := range m {
			elems[k] = BenchValue(t.ElementType, e)
		}
		return tftypes.NewValue(t, elems)
	}
	switch x := v.(type) {
	case int:
		return tftypes.NewValue(typ, big.NewFloat(float64(x)))
	case float64:
		return tftypes.NewValue(typ, big.NewFloat(x))
	}
	return tftypes.NewValue(typ, v)
}

// BenchDynamic is v as the protocol carries it, failing b when it cannot be.
func BenchDynamic(b testing.TB, v tftypes.Value) *tfprotov6.DynamicValue {
	d, err := tfprotov6.NewDynamicValue(v.Type(), v)
	if err != nil {
		b.Fatal(err)
	}
	return &d
}

// BenchJSON is v as Terraform writes it in a state file, for UpgradeResourceState.
func BenchJSON(v tftypes.Value) any {
	if v.IsNull() {
		return nil
	}
	switch {
	case v.Type().Is(tftypes.Object{}), v.Type().Is(tftypes.Map{}):
		var m map[string]tftypes.Value
		_ = v.As(&m)
		out := map[string]any{}
		for k, e := range m {
			out[k] = BenchJSON(e)
		}
		return out
	case v.Type().Is(tftypes.List{}), v.Type().Is(tftypes.Set{}):
		var l []tftypes.Value
		_ = v.As(&l)
		out := []any{}
		for _, e := range l {
			out = append(out, BenchJSON(e))
		}
		return out
	case v.Type().Is(tftypes.Number):
		var f big.Float
		_ = v.As(&f)
		return json.Number(f.Text('g', -1))
	case v.Type().Is(tftypes.Bool):
		var x bool
		_ = v.As(&x)
		return x
	}
	var s string
	_ = v.As(&s)
	return s
}
