package packed

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// numbersAsText turns every number into its decimal text and leaves the rest
// byte for byte.
func TestNumbersAsText(t *testing.T) {
	t.Parallel()
	// {"a": [0, 127, -1, -33, 200, 70000, 1795601928, -70000, 30.5, 1e300], "b": nil, "c": true, "d": "x", "e": unknown}
	in := []byte{0x85,
		0xa1, 'a', 0x9a, 0x00, 0x7f, 0xff, 0xd0, 0xdf, 0xcc, 200, 0xce, 0x00, 0x01, 0x11, 0x70, 0xce, 0x6b, 0x06, 0xb6, 0x08,
		0xd2, 0xff, 0xfe, 0xee, 0x90, 0xcb, 0x40, 0x3e, 0x80, 0, 0, 0, 0, 0, 0xcb, 0x7e, 0x37, 0xe4, 0x3c, 0x88, 0x00, 0x75, 0x9c,
		0xa1, 'b', 0xc0, 0xa1, 'c', 0xc3, 0xa1, 'd', 0xa1, 'x', 0xa1, 'e', 0xd4, 0, 0}
	dv := &tfprotov6.DynamicValue{MsgPack: in}
	if err := numbersAsText(dv); err != nil {
		t.Fatal(err)
	}
	want := []string{"0", "127", "-1", "-33", "200", "70000", "1795601928", "-70000", "30.5", "1" + strings.Repeat("0", 300)}
	b := dv.MsgPack
	if b[0] != 0x85 || string(b[1:3]) != "\xa1a" || b[3] != 0x9a {
		t.Fatalf("head % x", b[:4])
	}
	b = b[4:]
	for _, w := range want {
		var s string
		switch {
		case b[0]&0xe0 == 0xa0:
			n := int(b[0] & 0x1f)
			s, b = string(b[1:1+n]), b[1+n:]
		case b[0] == 0xda:
			n := int(b[1])<<8 | int(b[2])
			s, b = string(b[3:3+n]), b[3+n:]
		default:
			t.Fatalf("want the string %q, got code 0x%02x", w, b[0])
		}
		if s != w {
			t.Errorf("got %q, want %q", s, w)
		}
	}
	if tail := []byte{0xa1, 'b', 0xc0, 0xa1, 'c', 0xc3, 0xa1, 'd', 0xa1, 'x', 0xa1, 'e', 0xd4, 0, 0}; string(b) != string(tail) {
		t.Errorf("rest % x, want % x", b, tail)
	}
	if err := numbersAsText(&tfprotov6.DynamicValue{MsgPack: in[:len(in)-1]}); err == nil {
		t.Error("a value cut short: no error")
	}
}
