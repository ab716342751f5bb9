package packed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"
)

// A stored state is JSON; Terraform wants the upgraded state as MessagePack.
// terraform-plugin-go v0.31 gets there through a tftypes.Value, decoding the
// JSON again at every level of nesting (jsonUnmarshal reads each attribute
// into a json.RawMessage and starts a new json.Decoder on it) and allocating a
// Value and an attribute path per element: most of an upgrade's cost.
// jsonType reads the JSON once and writes what tftypes.Value.MarshalMsgPack
// writes for the value tftypes.ValueFromJSONWithOpts reads (attributes the
// type lacks ignored, as passthrough asks): the same bytes, but that a map's
// keys come sorted, not in Go's map order. Where the two could differ (a
// dynamic or tuple type), compileJSON declines and the caller keeps the
// tftypes path; so does any error, which the tftypes path then reports.
type jsonType struct {
	kind  jsonKind
	elem  *jsonType  // of a list, set or map
	attrs []jsonAttr // of an object, sorted by name as tftypes encodes them
}

type jsonKind int

const (
	jsonString jsonKind = iota
	jsonNumber
	jsonBool
	jsonList // a list or a set: both are arrays, on both sides
	jsonMap
	jsonObject
)

type jsonAttr struct {
	name string
	typ  *jsonType
}

// byName orders attributes as tftypes encodes them; compileJSON sorts by it
// and encodeObject searches by it.
func byName(a jsonAttr, name string) int { return strings.Compare(a.name, name) }

// compileJSON is t as the transcoder walks it; false for a type holding a
// dynamic value or a tuple.
func compileJSON(t tftypes.Type) (*jsonType, bool) {
	switch {
	case t.Is(tftypes.String):
		return &jsonType{kind: jsonString}, true
	case t.Is(tftypes.Number):
		return &jsonType{kind: jsonNumber}, true
	case t.Is(tftypes.Bool):
		return &jsonType{kind: jsonBool}, true
	}
	switch t := t.(type) {
	case tftypes.List:
		return compileElem(jsonList, t.ElementType)
	case tftypes.Set:
		return compileElem(jsonList, t.ElementType)
	case tftypes.Map:
		return compileElem(jsonMap, t.ElementType)
	case tftypes.Object:
		out := &jsonType{kind: jsonObject, attrs: make([]jsonAttr, 0, len(t.AttributeTypes))}
		for name, at := range t.AttributeTypes {
			c, ok := compileJSON(at)
			if !ok {
				return nil, false
			}
			out.attrs = append(out.attrs, jsonAttr{name: name, typ: c})
		}
		slices.SortFunc(out.attrs, func(a, b jsonAttr) int { return byName(a, b.name) })
		return out, true
	}
	return nil, false
}

func compileElem(kind jsonKind, elem tftypes.Type) (*jsonType, bool) {
	c, ok := compileJSON(elem)
	if !ok {
		return nil, false
	}
	return &jsonType{kind: kind, elem: c}, true
}

// msgpack is the MessagePack of the first JSON value in data, read as t.
func (t *jsonType) msgpack(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readJSON(dec)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(len(data))
	if err := t.encode(msgpack.NewEncoder(&buf), v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// jsonMembers are a JSON object's members in their order, a repeated name
// kept: tftypes decodes every one (and fails on any it cannot read), the last
// wins.
type jsonMembers []jsonMember

type jsonMember struct {
	name  string
	value any
}

// readJSON reads the next value: nil, a bool, a string, a json.Number, an
// array as []any or an object as jsonMembers.
func readJSON(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('['):
		l := []any{}
		for dec.More() {
			e, err := readJSON(dec)
			if err != nil {
				return nil, err
			}
			l = append(l, e)
		}
		_, err := dec.Token() // ']': the decoder checks it
		return l, err
	case json.Delim('{'):
		var o jsonMembers
		for dec.More() {
			name, err := dec.Token() // a string: the decoder checks it
			if err != nil {
				return nil, err
			}
			v, err := readJSON(dec)
			if err != nil {
				return nil, err
			}
			s, _ := name.(string)
			o = append(o, jsonMember{name: s, value: v})
		}
		_, err := dec.Token()
		return o, err
	}
	return tok, nil
}

// encode writes v as tftypes' JSON decoding reads it for t
// (jsonUnmarshalString, ...Number, ...Bool accept a string from a number or a
// bool, a number from a string, a bool from "true", "1", "false", "0" or the
// numbers 1 and 0).
func (t *jsonType) encode(enc *msgpack.Encoder, v any) error {
	if v == nil {
		return enc.EncodeNil()
	}
	switch t.kind {
	case jsonString:
		switch v := v.(type) {
		case string:
			return enc.EncodeString(v)
		case json.Number:
			return enc.EncodeString(string(v))
		case bool:
			return enc.EncodeString(strconv.FormatBool(v))
		}
	case jsonNumber:
		switch v := v.(type) {
		case json.Number:
			return encodeNumber(enc, string(v))
		case string:
			return encodeNumber(enc, v)
		}
	case jsonBool:
		if b, ok := jsonBoolean(v); ok {
			return enc.EncodeBool(b)
		}
	case jsonList:
		if l, ok := v.([]any); ok {
			return t.encodeList(enc, l)
		}
	case jsonMap:
		if o, ok := v.(jsonMembers); ok {
			return t.encodeMap(enc, o)
		}
	case jsonObject:
		if o, ok := v.(jsonMembers); ok {
			return t.encodeObject(enc, o)
		}
	}
	return fmt.Errorf("a JSON %T where the state's type has no room for it", v)
}

func jsonBoolean(v any) (bool, bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case string:
		switch v {
		case "true", "1":
			return true, true
		case "false", "0":
			return false, true
		}
	case json.Number:
		switch v {
		case "1":
			return true, true
		case "0":
			return false, true
		}
	}
	return false, false
}

func (t *jsonType) encodeList(enc *msgpack.Encoder, l []any) error {
	if err := enc.EncodeArrayLen(len(l)); err != nil {
		return err
	}
	for _, e := range l {
		if err := t.elem.encode(enc, e); err != nil {
			return err
		}
	}
	return nil
}

// encodeMap writes the keys sorted (tftypes writes them in Go's map order,
// which Terraform does not depend on), each once, with its last value.
func (t *jsonType) encodeMap(enc *msgpack.Encoder, o jsonMembers) error {
	sorted := slices.Clone(o)
	slices.SortStableFunc(sorted, func(a, b jsonMember) int { return strings.Compare(a.name, b.name) })
	last := sorted[:0]
	for _, m := range sorted {
		if n := len(last); n > 0 && last[n-1].name == m.name {
			if err := t.elem.checkDuplicate(last[n-1].value); err != nil {
				return err
			}
			last[n-1] = m
			continue
		}
		last = append(last, m)
	}
	if err := enc.EncodeMapLen(len(last)); err != nil {
		return err
	}
	for _, m := range last {
		if err := enc.EncodeString(m.name); err != nil {
			return err
		}
		if err := t.elem.encode(enc, m.value); err != nil {
			return err
		}
	}
	return nil
}

// encodeObject writes every attribute of the type, null where the state has
// none, and ignores the state's attributes the type lacks.
func (t *jsonType) encodeObject(enc *msgpack.Encoder, o jsonMembers) error {
	values := make([]any, len(t.attrs))
	for _, m := range o {
		i, found := slices.BinarySearchFunc(t.attrs, m.name, byName)
		if !found {
			continue
		}
		if err := t.attrs[i].typ.checkDuplicate(values[i]); err != nil {
			return err
		}
		values[i] = m.value
	}
	if err := enc.EncodeMapLen(len(t.attrs)); err != nil {
		return err
	}
	for i, a := range t.attrs {
		if err := enc.EncodeString(a.name); err != nil {
			return err
		}
		if err := a.typ.encode(enc, values[i]); err != nil {
			return err
		}
	}
	return nil
}

// checkDuplicate fails where tftypes fails on a value a repeated name
// replaces.
func (t *jsonType) checkDuplicate(v any) error {
	if v == nil {
		return nil
	}
	return t.encode(msgpack.NewEncoder(io.Discard), v)
}

// encodeNumber writes s as tftypes does (marshalMsgPackNumber) the number it
// parses from s at 512 bits: an integer within int64 as one, a float64 that
// holds it exactly as a float, anything else as its decimal text.
func encodeNumber(enc *msgpack.Encoder, s string) error {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return enc.EncodeInt(i)
	}
	f, _, err := big.ParseFloat(s, 10, 512, big.ToNearestEven)
	if err != nil {
		return err
	}
	if f.IsInf() {
		return enc.EncodeFloat64(math.Inf(f.Sign()))
	}
	if i, acc := f.Int64(); acc == big.Exact {
		return enc.EncodeInt(i)
	}
	if fv, acc := f.Float64(); acc == big.Exact && !f.IsInt() {
		return enc.EncodeFloat64(fv)
	}
	return enc.EncodeString(f.Text('f', -1))
}
