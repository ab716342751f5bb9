package packed

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// numbersAsText rewrites every number in a value sent to Terraform as the
// MessagePack string of its decimal text, which Terraform decodes exactly as
// it decodes a number of a state file.
//
// Why: Terraform 1.10 to 1.14 tell whether a refresh changed the state, and
// whether it changed a root output, by comparing the decoded values with
// reflect.DeepEqual (hashicorp/terraform internal/states/state_equal.go,
// ManagedResourcesEqual and sameRootOutputValues; replaced by value
// comparisons in commit 659d5e2218, v1.15.0), so a refreshed resource and an
// output built from a data source differed from the state file's. The state
// read from the file decodes its numbers from JSON text at 512 bits of
// precision (go-cty cty.ParseNumberVal); a MessagePack integer decodes at 64
// (cty.NumberIntVal). So any number made an unchanged refresh differ:
// `plan -refresh-only -detailed-exitcode` exited 2 while printing "No
// changes". A number sent as a string is decoded by cty.ParseNumberVal like
// the file's (go-cty cty/msgpack unmarshal.go, the string fallback that
// cty's own encoder uses for numbers beyond int64 and float64), from the same
// text: integers in decimal, floats in their shortest form, which is what
// Terraform writes to the file (cty/json marshal.go, Text('f', -1)).
func numbersAsText(dv *tfprotov6.DynamicValue) error {
	if dv == nil || len(dv.MsgPack) == 0 {
		return nil
	}
	out := make([]byte, 0, len(dv.MsgPack)+len(dv.MsgPack)/8)
	out, rest, err := numbersAsTextIn(out, dv.MsgPack)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("%d bytes after the value", len(rest))
	}
	dv.MsgPack = out
	return nil
}

var errShort = fmt.Errorf("MessagePack value cut short")

// numbersAsTextIn appends the first value of b to out, numbers rewritten,
// and returns what follows it in b.
func numbersAsTextIn(out, b []byte) ([]byte, []byte, error) {
	if len(b) == 0 {
		return out, b, errShort
	}
	c := b[0]
	// n is the size of a length field, or of a number's payload.
	var n int
	switch {
	case c <= 0x7f: // positive fixint
		return appendText(out, strconv.FormatUint(uint64(c), 10)), b[1:], nil
	case c >= 0xe0: // negative fixint
		return appendText(out, strconv.FormatInt(int64(int8(c)), 10)), b[1:], nil
	case c >= 0x80 && c <= 0x8f: // fixmap
		return elements(append(out, c), b[1:], 2*int(c&0x0f))
	case c >= 0x90 && c <= 0x9f: // fixarray
		return elements(append(out, c), b[1:], int(c&0x0f))
	case c >= 0xa0 && c <= 0xbf: // fixstr
		return copied(out, b, 1+int(c&0x1f))
	case c == 0xc0, c == 0xc2, c == 0xc3: // nil, false, true
		return append(out, c), b[1:], nil
	case c == 0xc4 || c == 0xd9: // bin8, str8
		return sized(out, b, 1, 0)
	case c == 0xc5 || c == 0xda: // bin16, str16
		return sized(out, b, 2, 0)
	case c == 0xc6 || c == 0xdb: // bin32, str32
		return sized(out, b, 4, 0)
	case c == 0xc7: // ext8: length, type, data
		return sized(out, b, 1, 1)
	case c == 0xc8:
		return sized(out, b, 2, 1)
	case c == 0xc9:
		return sized(out, b, 4, 1)
	case c >= 0xd4 && c <= 0xd8: // fixext 1, 2, 4, 8, 16: type, data
		return copied(out, b, 2+1<<(c-0xd4))
	case c == 0xdc || c == 0xdd || c == 0xde || c == 0xdf: // array16, array32, map16, map32
		n = 2
		if c == 0xdd || c == 0xdf {
			n = 4
		}
		if len(b) < 1+n {
			return out, b, errShort
		}
		count := int(uintN(b[1 : 1+n]))
		if c >= 0xde {
			count *= 2
		}
		return elements(append(out, b[:1+n]...), b[1+n:], count)
	case c >= 0xca && c <= 0xd3: // float32, float64, uint8-64, int8-64
		n = [...]int{4, 8, 1, 2, 4, 8, 1, 2, 4, 8}[c-0xca]
	default: // 0xc1 is never used
		return out, b, fmt.Errorf("unexpected MessagePack code 0x%02x", c)
	}
	if len(b) < 1+n {
		return out, b, errShort
	}
	p, rest := b[1:1+n], b[1+n:]
	var text string
	switch {
	case c == 0xca:
		text = strconv.FormatFloat(float64(math.Float32frombits(uint32(uintN(p)))), 'f', -1, 32)
	case c == 0xcb:
		text = strconv.FormatFloat(math.Float64frombits(uintN(p)), 'f', -1, 64)
	case c <= 0xcf:
		text = strconv.FormatUint(uintN(p), 10)
	default: // signed: sign-extend from n bytes
		shift := 64 - 8*uint(n)
		text = strconv.FormatInt(int64(uintN(p)<<shift)>>shift, 10)
	}
	return appendText(out, text), rest, nil
}

// elements appends count values of b.
func elements(out, b []byte, count int) ([]byte, []byte, error) {
	var err error
	for range count {
		if out, b, err = numbersAsTextIn(out, b); err != nil {
			return out, b, err
		}
	}
	return out, b, nil
}

// sized copies a value whose length field has lenSize bytes, followed by
// extra bytes (an ext's type) and the payload.
func sized(out, b []byte, lenSize, extra int) ([]byte, []byte, error) {
	if len(b) < 1+lenSize {
		return out, b, errShort
	}
	return copied(out, b, 1+lenSize+extra+int(uintN(b[1:1+lenSize])))
}

func copied(out, b []byte, n int) ([]byte, []byte, error) {
	if len(b) < n {
		return out, b, errShort
	}
	return append(out, b[:n]...), b[n:], nil
}

// uintN is a big-endian unsigned integer of 1, 2, 4 or 8 bytes.
func uintN(p []byte) uint64 {
	switch len(p) {
	case 1:
		return uint64(p[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(p))
	case 4:
		return uint64(binary.BigEndian.Uint32(p))
	}
	return binary.BigEndian.Uint64(p)
}

// appendText appends s as a MessagePack string. A float's text in 'f' form
// may be longer than a fixstr holds (1e300), never longer than str16 does.
func appendText(out []byte, s string) []byte {
	switch {
	case len(s) < 32:
		out = append(out, 0xa0|byte(len(s)))
	case len(s) < 256:
		out = append(out, 0xd9, byte(len(s)))
	default:
		out = binary.BigEndian.AppendUint16(append(out, 0xda), uint16(len(s)))
	}
	return append(out, s...)
}
