package packed

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/vmihailenco/msgpack/v5"
)

// Encode is v as Terraform encodes it on the wire, for a packed attribute a
// provider only writes (a data source's computed one): strings, Int64,
// Float64 and Bool, and objects, maps and lists of them, attributes and keys
// in name order, as Terraform orders them.
func Encode(v attr.Value) ([]byte, error) {
	var buf bytes.Buffer
	err := encodeValue(msgpack.NewEncoder(&buf), &buf, v)
	return buf.Bytes(), err
}

func encodeValue(e *msgpack.Encoder, buf *bytes.Buffer, v attr.Value) error {
	switch {
	case v.IsNull():
		return e.EncodeNil()
	case v.IsUnknown():
		buf.Write(unknownValue)
		return nil
	}
	switch v := v.(type) {
	case types.String:
		return e.EncodeString(v.ValueString())
	case types.Int64:
		return e.EncodeInt(v.ValueInt64())
	case types.Float64:
		encodeFloat(e, v.ValueFloat64())
		return nil
	case types.Bool:
		return e.EncodeBool(v.ValueBool())
	case types.Object:
		return encodeMap(e, buf, v.Attributes())
	case types.Map:
		return encodeMap(e, buf, v.Elements())
	case types.List:
		_ = e.EncodeArrayLen(len(v.Elements()))
		for _, el := range v.Elements() {
			if err := encodeValue(e, buf, el); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("packed: cannot encode a %T", v)
}

func encodeMap(e *msgpack.Encoder, buf *bytes.Buffer, m map[string]attr.Value) error {
	_ = e.EncodeMapLen(len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		_ = e.EncodeString(k)
		if err := encodeValue(e, buf, m[k]); err != nil {
			return err
		}
	}
	return nil
}
