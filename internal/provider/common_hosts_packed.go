package provider

import (
	"bytes"
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// gse_managed_process.hosts travels through the framework packed: one string
// holding the list exactly as Terraform encodes it on the wire (MessagePack).
// The framework walks every value it plans or applies several times over
// (terraform-plugin-framework v1.19: once to nullify collection blocks, once
// to mark unknowns, once per attribute its plan modifiers touch, ...); with
// 10,000 hosts those walks were 95 % of a plan's CPU. Packed, the list is one
// leaf to them. protocol_packed.go unpacks it for Terraform, which sees the
// list nested attribute of hostsNestedType.

// hostListType is the framework's type of a packed host list.
type hostListType struct{ basetypes.StringType }

var _ basetypes.StringTypable = hostListType{}

func (hostListType) Equal(o attr.Type) bool { _, ok := o.(hostListType); return ok }
func (hostListType) String() string         { return "hostListType" }

func (hostListType) ValueType(context.Context) attr.Value { return hostList{} }

func (hostListType) ValueFromString(_ context.Context, s basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	l, err := unpackHosts(s)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Invalid hosts value", err.Error())
		return l, diags
	}
	return l, nil
}

func (t hostListType) ValueFromTerraform(ctx context.Context, v tftypes.Value) (attr.Value, error) {
	s, err := t.StringType.ValueFromTerraform(ctx, v)
	if err != nil {
		return nil, err
	}
	return unpackHosts(s.(basetypes.StringValue))
}

// hostList is a packed gse_managed_process.hosts: the wire bytes (the
// string), and the hosts decoded from them once.
type hostList struct {
	basetypes.StringValue
	hosts []hostModel
	// unknown marks the elements that are unknown as a whole (only in a plan).
	unknown []bool
}

var _ basetypes.StringValuable = hostList{}

func (hostList) Type(context.Context) attr.Type { return hostListType{} }

func (l hostList) Equal(o attr.Value) bool {
	other, ok := o.(hostList)
	return ok && l.StringValue.Equal(other.StringValue)
}

// elementsValue is a list or a set: types.List, types.Set, hostList.
type elementsValue interface {
	attr.Value
	Elements() []attr.Value
}

var _ elementsValue = hostList{}

// newHostList packs known hosts.
func newHostList(hosts []hostModel) hostList {
	return hostList{StringValue: packHosts(hosts, nil), hosts: hosts}
}

// packHosts is the packed string of hosts; unknown marks the elements unknown
// as a whole.
func packHosts(hosts []hostModel, unknown []bool) types.String {
	return types.StringValue(string(encodeHosts(hosts, unknown)))
}

// hostListOf is the packed list s holds.
func hostListOf(ctx context.Context, s types.String) (hostList, diag.Diagnostics) {
	v, diags := hostListType{}.ValueFromString(ctx, s)
	l, _ := v.(hostList)
	return l, diags
}

// Hosts are the hosts of a known list; those of a null or unknown one are none.
func (l hostList) Hosts() []hostModel { return l.hosts }

// Elements are the hosts as objects of hostObjectType, for the checks and plan
// modifiers shared with the other host lists (checkHosts, hostFields).
func (l hostList) Elements() []attr.Value {
	out := make([]attr.Value, len(l.hosts))
	for i := range l.hosts {
		if l.unknown != nil && l.unknown[i] {
			out[i] = types.ObjectUnknown(hostObjectType.AttrTypes)
			continue
		}
		obj := make(map[string]attr.Value, len(hostElement))
		for _, a := range hostElement {
			obj[a.name] = a.get(&l.hosts[i])
		}
		out[i] = types.ObjectValueMust(hostObjectType.AttrTypes, obj)
	}
	return out
}

// String is a summary: the packed bytes are no text.
func (l hostList) String() string {
	if l.IsNull() || l.IsUnknown() {
		return l.StringValue.String()
	}
	return fmt.Sprintf("<%d hosts>", len(l.hosts))
}

// unpackHosts decodes a packed list; null and unknown stay so.
func unpackHosts(s basetypes.StringValue) (hostList, error) {
	l := hostList{StringValue: s}
	if s.IsNull() || s.IsUnknown() {
		return l, nil
	}
	d := msgpack.NewDecoder(bytes.NewReader([]byte(s.ValueString())))
	n, err := d.DecodeArrayLen()
	if err != nil || n < 0 {
		return l, fmt.Errorf("hosts is not a list (%v)", err)
	}
	l.hosts = make([]hostModel, n)
	for i := range l.hosts {
		whole, err := decodeHost(d, &l.hosts[i])
		if err != nil {
			return l, fmt.Errorf("hosts[%d]: %w", i, err)
		}
		if whole {
			if l.unknown == nil {
				l.unknown = make([]bool, n)
			}
			l.unknown[i] = true
		}
	}
	return l, nil
}

// decodeHost reads one element into h; unknown reports an element unknown as
// a whole. An attribute the element lacks stays null.
func decodeHost(d *msgpack.Decoder, h *hostModel) (unknown bool, err error) {
	*h = hostModel{} // all null
	if c, err := d.PeekCode(); err != nil || msgpcode.IsExt(c) {
		return err == nil, d.Skip()
	}
	n, err := d.DecodeMapLen()
	if err != nil || n < 0 {
		return false, fmt.Errorf("not an object (%v)", err)
	}
	for range n {
		k, err := d.DecodeString()
		if err != nil {
			return false, err
		}
		err = fmt.Errorf("unexpected attribute %q", k)
		for _, a := range hostElement {
			if a.name != k {
				continue
			}
			switch f := a.field(h).(type) {
			case *types.String:
				*f, err = decodeString(d)
			case *types.Int64:
				*f, err = decodeInt(d)
			}
		}
		if err != nil {
			return false, fmt.Errorf("%s: %w", k, err)
		}
	}
	return false, nil
}

// peekState reads a null or unknown value, as Terraform encodes them; known
// is true when neither is next.
func peekState(d *msgpack.Decoder) (null, unknown, known bool, err error) {
	c, err := d.PeekCode()
	switch {
	case err != nil:
		return false, false, false, err
	case c == msgpcode.Nil:
		return true, false, false, d.Skip()
	case msgpcode.IsExt(c):
		return false, true, false, d.Skip()
	}
	return false, false, true, nil
}

func decodeString(d *msgpack.Decoder) (types.String, error) {
	null, unknown, known, err := peekState(d)
	switch {
	case err != nil || null:
		return types.StringNull(), err
	case unknown:
		return types.StringUnknown(), nil
	case known:
		s, err := d.DecodeString()
		return types.StringValue(s), err
	}
	return types.StringNull(), nil
}

func decodeInt(d *msgpack.Decoder) (types.Int64, error) {
	null, unknown, _, err := peekState(d)
	switch {
	case err != nil || null:
		return types.Int64Null(), err
	case unknown:
		return types.Int64Unknown(), nil
	}
	c, _ := d.PeekCode()
	if msgpcode.IsString(c) { // a number beyond int64: no id is that large
		return types.Int64Null(), fmt.Errorf("number out of range")
	}
	i, err := d.DecodeInt64()
	return types.Int64Value(i), err
}

// unknownValue is an unknown value of any type, as Terraform encodes it.
var unknownValue = []byte{msgpcode.FixExt1, 0, 0}

// encodeHosts encodes hosts as Terraform does (attributes in name order,
// integers in their shortest form), so an unchanged list packs to the same
// bytes; the elements unknown marks are encoded unknown as a whole.
func encodeHosts(hosts []hostModel, unknown []bool) []byte {
	var buf bytes.Buffer
	buf.Grow(64 * len(hosts))
	e := msgpack.NewEncoder(&buf)
	// Writes to a bytes.Buffer do not fail.
	_ = e.EncodeArrayLen(len(hosts))
	for i, h := range hosts {
		if unknown != nil && unknown[i] {
			buf.Write(unknownValue)
			continue
		}
		_ = e.EncodeMapLen(len(hostElement))
		for _, a := range hostElement {
			_ = e.EncodeString(a.name)
			encodeScalar(e, &buf, a.get(&h))
		}
	}
	return buf.Bytes()
}

func encodeScalar(e *msgpack.Encoder, buf *bytes.Buffer, v attr.Value) {
	switch {
	case v.IsNull():
		_ = e.EncodeNil()
	case v.IsUnknown():
		buf.Write(unknownValue)
	default:
		switch v := v.(type) {
		case types.String:
			_ = e.EncodeString(v.ValueString())
		case types.Int64:
			_ = e.EncodeInt(v.ValueInt64())
		}
	}
}
