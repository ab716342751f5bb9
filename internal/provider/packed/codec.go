package packed

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// This file is the attribute type (Of) and the codec (ObjectCodec) of a
// packed attribute: one string holding the value exactly as Terraform
// encodes it on the wire (MessagePack). See doc.go for why.

// Type is the framework type of a packed attribute (an Of): the server finds
// the packed attributes of a resource's schema by it.
type Type interface {
	attr.Type
	Unpacked
}

// Unpacked says what Terraform sees of a packed attribute.
type Unpacked interface {
	// UnpackedSchema gives a the type Terraform sees,
	UnpackedSchema(ctx context.Context, a *tfprotov6.SchemaAttribute)
	// which is this.
	UnpackedType(ctx context.Context) tftypes.Type
}

// Value is what a packed attribute holds once decoded: the string, and what
// the provider reads of it.
type Value[V any] interface {
	basetypes.StringValuable
	Unpacked
	// Unpack decodes the string s; null and unknown stay so.
	Unpack(s basetypes.StringValue) (V, error)
}

// Of is the framework type of a packed attribute whose values are V: the
// CustomType of a schema.StringAttribute.
type Of[V Value[V]] struct{ basetypes.StringType }

func (Of[V]) Equal(o attr.Type) bool { _, ok := o.(Of[V]); return ok }

func (Of[V]) String() string {
	var zero V
	return fmt.Sprintf("packed %T", zero)
}

func (Of[V]) ValueType(context.Context) attr.Value {
	var zero V
	return zero
}

func (Of[V]) UnpackedSchema(ctx context.Context, a *tfprotov6.SchemaAttribute) {
	var zero V
	zero.UnpackedSchema(ctx, a)
}

func (Of[V]) UnpackedType(ctx context.Context) tftypes.Type {
	var zero V
	return zero.UnpackedType(ctx)
}

func (Of[V]) ValueFromString(_ context.Context, s basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	var zero V
	v, err := zero.Unpack(s)
	var diags diag.Diagnostics
	if err != nil {
		diags.AddError("Invalid packed value", err.Error())
	}
	return v, diags
}

func (t Of[V]) ValueFromTerraform(ctx context.Context, v tftypes.Value) (attr.Value, error) {
	s, err := t.StringType.ValueFromTerraform(ctx, v)
	if err != nil {
		return nil, err
	}
	str, ok := s.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("%T is no string", s)
	}
	var zero V
	return zero.Unpack(str)
}

// Field is an attribute of the objects a packed value holds: its name
// and where a T keeps it (*types.String, *types.Int64, *types.Float64 or
// *types.Bool).
type Field[T any] struct {
	Name  string
	Field func(v *T) any
}

// Get is the attribute's value in v.
func (f Field[T]) Get(v *T) attr.Value {
	switch p := f.Field(v).(type) {
	case *types.String:
		return *p
	case *types.Int64:
		return *p
	case *types.Float64:
		return *p
	case *types.Bool:
		return *p
	}
	return nil
}

// ObjectCodec encodes and decodes objects of T as Terraform does: attributes
// in name order (the order of the fields), integers in their shortest form,
// so an unchanged value packs to the same bytes.
type ObjectCodec[T any] []Field[T]

// unknownValue is an unknown value of any type, as Terraform encodes it.
var unknownValue = []byte{msgpcode.FixExt1, 0, 0}

// WriteUnknown writes an unknown value of any type to buf, as Terraform
// encodes it.
func WriteUnknown(buf *bytes.Buffer) { buf.Write(unknownValue) }

// Writes to a bytes.Buffer do not fail: the encoders' errors are nil.

// Encode writes v with e, which writes to buf.
func (c ObjectCodec[T]) Encode(e *msgpack.Encoder, buf *bytes.Buffer, v *T) {
	_ = e.EncodeMapLen(len(c))
	for _, f := range c {
		_ = e.EncodeString(f.Name)
		_ = encodeValue(e, buf, f.Get(v)) // a field holds a String, Int64, Float64 or Bool
	}
}

// encodeFloat writes f as Terraform writes a number: an integer when it is
// one (go-cty cty/msgpack marshal.go).
func encodeFloat(e *msgpack.Encoder, f float64) {
	if i := int64(f); float64(i) == f && f >= math.MinInt64 && f < math.MaxInt64 {
		_ = e.EncodeInt(i)
		return
	}
	_ = e.EncodeFloat64(f)
}

// Decode reads an object into *v (zero: every attribute null); unknown reports
// an object unknown as a whole.
func (c ObjectCodec[T]) Decode(d *msgpack.Decoder, v *T) (unknown bool, err error) {
	if st, err := ReadState(d); err != nil || st != Known {
		return st == Unknown, err
	}
	n, err := d.DecodeMapLen()
	if err != nil {
		return false, fmt.Errorf("not an object (%w)", err)
	}
	for range n {
		k, err := d.DecodeString()
		if err != nil {
			return false, err
		}
		i := slices.IndexFunc(c, func(f Field[T]) bool { return f.Name == k })
		if i < 0 {
			return false, fmt.Errorf("unexpected attribute %q", k)
		}
		if err := decodeScalar(d, c[i].Field(v)); err != nil {
			return false, fmt.Errorf("%s: %w", k, err)
		}
	}
	return false, nil
}

// State is whether a value is null, unknown or known.
type State int

const (
	Known State = iota
	Null
	Unknown
)

// ReadState reads a null or an unknown value, as Terraform encodes them, if
// one is next, and says which it read; Known reads nothing.
func ReadState(d *msgpack.Decoder) (State, error) {
	c, err := d.PeekCode()
	switch {
	case err != nil:
		return Known, err
	case c == msgpcode.Nil:
		return Null, d.Skip()
	case msgpcode.IsExt(c):
		return Unknown, d.Skip()
	}
	return Known, nil
}

// decodeScalar reads a string, number or bool into p.
func decodeScalar(d *msgpack.Decoder, p any) error {
	st, err := ReadState(d)
	if err != nil || st == Null {
		return err // p stays null
	}
	unknown := st == Unknown
	switch p := p.(type) {
	case *types.String:
		*p = types.StringUnknown()
		if !unknown {
			s, err := d.DecodeString()
			*p = types.StringValue(s)
			return err
		}
	case *types.Int64:
		*p = types.Int64Unknown()
		if !unknown {
			i, err := decodeInt(d)
			*p = types.Int64Value(i)
			return err
		}
	case *types.Float64:
		*p = types.Float64Unknown()
		if !unknown {
			f, err := decodeFloat(d)
			*p = types.Float64Value(f)
			return err
		}
	case *types.Bool:
		*p = types.BoolUnknown()
		if !unknown {
			b, err := d.DecodeBool()
			*p = types.BoolValue(b)
			return err
		}
	}
	return nil
}

// decodeInt reads an integer, also one sent as its decimal text, as
// numbersAsText sends numbers and as Terraform sends one beyond int64 (no id
// or time is that large).
func decodeInt(d *msgpack.Decoder) (int64, error) {
	if c, err := d.PeekCode(); err == nil && msgpcode.IsString(c) {
		s, err := d.DecodeString()
		if err != nil {
			return 0, err
		}
		return strconv.ParseInt(s, 10, 64)
	}
	return d.DecodeInt64()
}

// decodeFloat reads a number, also one sent as its decimal text (see decodeInt).
func decodeFloat(d *msgpack.Decoder) (float64, error) {
	if c, err := d.PeekCode(); err == nil && msgpcode.IsString(c) {
		s, err := d.DecodeString()
		if err != nil {
			return 0, err
		}
		return strconv.ParseFloat(s, 64)
	}
	return d.DecodeFloat64()
}

// String is the framework's string of a packed value: its bytes.
func String(b []byte) types.String { return types.StringValue(string(b)) }

// Decoder reads a packed value; it is nil when s is null or unknown.
func Decoder(s basetypes.StringValue) *msgpack.Decoder {
	if s.IsNull() || s.IsUnknown() {
		return nil
	}
	return msgpack.NewDecoder(bytes.NewReader([]byte(s.ValueString())))
}
