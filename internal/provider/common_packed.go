package provider

import (
	"bytes"
	"context"
	"fmt"
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

// Some attributes hold one value per host: gse_managed_process.hosts and
// host_status. They travel through the framework packed: one string holding
// the value exactly as Terraform encodes it on the wire (MessagePack). The
// framework walks every value it plans or applies several times over
// (terraform-plugin-framework v1.19: to nullify collection blocks, to mark
// unknowns, once per attribute a plan modifier touches, to compare and copy
// states, to encode them); with 10,000 hosts those walks were 95 % of a plan's
// CPU. Packed, such a value is one leaf to them, decoded once where the
// provider reads it. protocol_packed.go unpacks it for Terraform, which sees
// the type packedType declares.

// packedType is the framework type of a packed attribute (a packedOf).
type packedType interface {
	attr.Type
	terraformSchemaer
}

type terraformSchemaer interface {
	// terraformSchema gives a the type Terraform sees,
	terraformSchema(ctx context.Context, a *tfprotov6.SchemaAttribute)
	// which is this.
	terraformType(ctx context.Context) tftypes.Type
}

// packedValue is what a packed attribute holds once decoded (hostList,
// hostStatusMap): the string, and what the provider reads of it.
type packedValue[V any] interface {
	basetypes.StringValuable
	terraformSchemaer
	// unpack decodes the string s; null and unknown stay so.
	unpack(s basetypes.StringValue) (V, error)
}

// packedOf is the framework type of a packed attribute whose values are V.
type packedOf[V packedValue[V]] struct{ basetypes.StringType }

func (packedOf[V]) Equal(o attr.Type) bool { _, ok := o.(packedOf[V]); return ok }

func (packedOf[V]) String() string {
	var zero V
	return fmt.Sprintf("packed %T", zero)
}

func (packedOf[V]) ValueType(context.Context) attr.Value {
	var zero V
	return zero
}

func (packedOf[V]) terraformSchema(ctx context.Context, a *tfprotov6.SchemaAttribute) {
	var zero V
	zero.terraformSchema(ctx, a)
}

func (packedOf[V]) terraformType(ctx context.Context) tftypes.Type {
	var zero V
	return zero.terraformType(ctx)
}

func (packedOf[V]) ValueFromString(_ context.Context, s basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	var zero V
	v, err := zero.unpack(s)
	var diags diag.Diagnostics
	if err != nil {
		diags.AddError("Invalid packed value", err.Error())
	}
	return v, diags
}

func (t packedOf[V]) ValueFromTerraform(ctx context.Context, v tftypes.Value) (attr.Value, error) {
	s, err := t.StringType.ValueFromTerraform(ctx, v)
	if err != nil {
		return nil, err
	}
	str, ok := s.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("%T is no string", s)
	}
	var zero V
	return zero.unpack(str)
}

// elementsValue is a list or a set: types.List, types.Set, hostList.
type elementsValue interface {
	attr.Value
	Elements() []attr.Value
}

// wireField is an attribute of the objects a packed value holds: its name
// and where a T keeps it (*types.String, *types.Int64 or *types.Bool).
type wireField[T any] struct {
	name  string
	field func(v *T) any
}

// get is the attribute's value in v.
func (f wireField[T]) get(v *T) attr.Value {
	switch p := f.field(v).(type) {
	case *types.String:
		return *p
	case *types.Int64:
		return *p
	case *types.Bool:
		return *p
	}
	return nil
}

// objectCodec encodes and decodes objects of T as Terraform does: attributes
// in name order (the order of the fields), integers in their shortest form,
// so an unchanged value packs to the same bytes.
type objectCodec[T any] []wireField[T]

// unknownValue is an unknown value of any type, as Terraform encodes it.
var unknownValue = []byte{msgpcode.FixExt1, 0, 0}

// Writes to a bytes.Buffer do not fail: the encoders' errors are nil.

func (c objectCodec[T]) encode(e *msgpack.Encoder, buf *bytes.Buffer, v *T) {
	_ = e.EncodeMapLen(len(c))
	for _, f := range c {
		_ = e.EncodeString(f.name)
		switch a := f.get(v); {
		case a.IsNull():
			_ = e.EncodeNil()
		case a.IsUnknown():
			buf.Write(unknownValue)
		default:
			switch a := a.(type) {
			case types.String:
				_ = e.EncodeString(a.ValueString())
			case types.Int64:
				_ = e.EncodeInt(a.ValueInt64())
			case types.Bool:
				_ = e.EncodeBool(a.ValueBool())
			}
		}
	}
}

// decode reads an object into *v (zero: every attribute null); unknown reports
// an object unknown as a whole.
func (c objectCodec[T]) decode(d *msgpack.Decoder, v *T) (unknown bool, err error) {
	if null, unknown, err := peekState(d); err != nil || null || unknown {
		return unknown, err
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
		i := slices.IndexFunc(c, func(f wireField[T]) bool { return f.name == k })
		if i < 0 {
			return false, fmt.Errorf("unexpected attribute %q", k)
		}
		if err := decodeScalar(d, c[i].field(v)); err != nil {
			return false, fmt.Errorf("%s: %w", k, err)
		}
	}
	return false, nil
}

// peekState reads a null or an unknown value, as Terraform encodes them, if
// one is next.
func peekState(d *msgpack.Decoder) (null, unknown bool, err error) {
	c, err := d.PeekCode()
	switch {
	case err != nil:
		return false, false, err
	case c == msgpcode.Nil:
		return true, false, d.Skip()
	case msgpcode.IsExt(c):
		return false, true, d.Skip()
	}
	return false, false, nil
}

// decodeScalar reads a string, number or bool into p.
func decodeScalar(d *msgpack.Decoder, p any) error {
	null, unknown, err := peekState(d)
	if err != nil || null {
		return err // p stays null
	}
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

// packedString is the framework's string of a packed value: its bytes.
func packedString(b []byte) types.String { return types.StringValue(string(b)) }

// decoderOf reads a packed value; it is nil when s is null or unknown.
func decoderOf(s basetypes.StringValue) *msgpack.Decoder {
	if s.IsNull() || s.IsUnknown() {
		return nil
	}
	return msgpack.NewDecoder(bytes.NewReader([]byte(s.ValueString())))
}
