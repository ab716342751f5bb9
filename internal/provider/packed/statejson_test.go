package packed

import (
	"bytes"
	"reflect"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"
)

// stateJSONType holds every kind the transcoder handles, nested.
var stateJSONType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"s": tftypes.String, "n": tftypes.Number, "b": tftypes.Bool,
	"l":   tftypes.List{ElementType: tftypes.String},
	"set": tftypes.Set{ElementType: tftypes.Number},
	"m":   tftypes.Map{ElementType: tftypes.Object{AttributeTypes: map[string]tftypes.Type{"x": tftypes.Number, "y": tftypes.Bool}}},
	"o": tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"hosts": tftypes.List{ElementType: tftypes.Object{AttributeTypes: map[string]tftypes.Type{"ip": tftypes.String, "bk_cloud_id": tftypes.Number}}},
		"tags":  tftypes.Map{ElementType: tftypes.String},
	}},
}}

var stateJSONCases = map[string]string{
	"full": `{"s":"a \"ü\" \u00e9","n":42,"b":true,"l":["x","y"],"set":[1,2.5],"m":{"k2":{"x":1,"y":false},"k1":null},` +
		`"o":{"hosts":[{"ip":"10.0.0.1","bk_cloud_id":0},null],"tags":{"b":"2","a":"1"}}}`,
	"nulls and missing":     `{"s":null,"l":null,"o":{}}`,
	"empty collections":     `{"l":[],"set":[],"m":{},"o":{"hosts":[],"tags":{}}}`,
	"attributes it lacks":   `{"gone":{"deep":[1,2]},"s":"kept","o":{"hosts":[{"ip":"a","old":1}],"older":"x"}}`,
	"duplicate keys":        `{"s":"first","s":"last"}`,
	"coercions":             `{"s":12.50,"n":"7","b":"1","l":[true,false,3],"m":{"k":{"x":"8","y":"false"}}}`,
	"bool from numbers":     `{"b":0}`,
	"numbers":               `{"set":[0,-0,1.5,-2,0.1,1e3,1E-2,9223372036854775807,9223372036854775808,-9223372036854775809,123456789012345678901234567890.5,1e400]}`,
	"number from text":      `{"n":"Inf"}`,
	"a null state":          `null`,
	"trailing data":         `{"s":"a"} {"s":"b"}`,
	"string for a list":     `{"l":"x"}`,
	"word for a bool":       `{"b":"yes"}`,
	"decimal for a bool":    `{"b":1.0}`,
	"word for a number":     `{"n":"many"}`,
	"object for a string":   `{"s":{}}`,
	"list for an object":    `{"o":[]}`,
	"not JSON":              `{"s":`,
	"a list at the top":     `[1]`,
	"escapes in keys":       `{"\u0073":"s by escape"}`,
	"number for a map key":  `{"m":{"1":{"x":1}}}`,
	"large and exact float": `{"n":4503599627370497.5}`,
}

// Where the transcoder answers, tftypes answers the same: the same value, each
// number encoded as tftypes encodes it (an integer, a float or text), so that
// Terraform decodes it at the same precision; where tftypes fails, the
// transcoder fails too, and the framework reports the error.
func TestStateJSONAsTFTypes(t *testing.T) {
	t.Parallel()
	jt, ok := compileJSON(stateJSONType)
	if !ok {
		t.Fatal("compileJSON declined")
	}
	answered := 0
	for name, in := range stateJSONCases {
		got, err := jt.msgpack([]byte(in))
		want, wantErr := tftypesMsgpack([]byte(in), stateJSONType)
		if (err == nil) != (wantErr == nil) {
			t.Errorf("%s: transcoder error %v, tftypes error %v", name, err, wantErr)
			continue
		}
		if err != nil {
			continue
		}
		answered++
		if g, w := decodedMsgpack(t, got), decodedMsgpack(t, want); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: transcoded\n%#v\ntftypes\n%#v", name, g, w)
		}
	}
	if answered < 14 {
		t.Errorf("only %d cases transcoded", answered)
	}
}

// A dynamic value or a tuple anywhere leaves the state to tftypes.
func TestStateJSONDeclinesDynamicAndTuples(t *testing.T) {
	t.Parallel()
	for _, typ := range []tftypes.Type{
		tftypes.Object{AttributeTypes: map[string]tftypes.Type{"d": tftypes.DynamicPseudoType}},
		tftypes.List{ElementType: tftypes.Tuple{ElementTypes: []tftypes.Type{tftypes.String}}},
		tftypes.Map{ElementType: tftypes.DynamicPseudoType},
	} {
		if _, ok := compileJSON(typ); ok {
			t.Errorf("%s compiled", typ)
		}
	}
}

func FuzzStateJSON(f *testing.F) {
	for _, in := range stateJSONCases {
		f.Add([]byte(in))
	}
	jt, _ := compileJSON(stateJSONType)
	f.Fuzz(func(t *testing.T, in []byte) {
		if hugeExponent.Match(in) {
			t.Skip("1e99999 takes both sides minutes to write as decimal text")
		}
		got, err := jt.msgpack(in)
		if err != nil {
			return // tftypes decodes it, or reports why
		}
		want, wantErr := tftypesMsgpack(in, stateJSONType)
		if wantErr != nil {
			t.Fatalf("transcoded what tftypes refuses (%v): %q", wantErr, in)
		}
		if g, w := decodedMsgpack(t, got), decodedMsgpack(t, want); !reflect.DeepEqual(g, w) {
			t.Fatalf("%q: transcoded\n%#v\ntftypes\n%#v", in, g, w)
		}
	})
}

var hugeExponent = regexp.MustCompile(`[eE][+-]?0*[0-9]{4,}`)

// tftypesMsgpack is what the framework's upgrade writes for a state of typ
// (as passthrough did before the transcoder).
func tftypesMsgpack(in []byte, typ tftypes.Type) ([]byte, error) {
	raw := tfprotov6.RawState{JSON: in}
	v, err := raw.UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}})
	if err != nil {
		return nil, err
	}
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	return dv.MsgPack, err
}

// decodedMsgpack is b as Go values: integers keep the width they were
// encoded with, floats and strings stay apart, maps compare in any order.
func decodedMsgpack(t *testing.T, b []byte) any {
	t.Helper()
	r := bytes.NewReader(b)
	v, err := msgpack.NewDecoder(r).DecodeInterface()
	if err != nil {
		t.Fatalf("%x: %v", b, err)
	}
	if r.Len() != 0 {
		t.Fatalf("%x: bytes after the value", b)
	}
	return v
}
