package hosts

import (
	"bytes"
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// This file holds gse_managed_process.hosts as a value: its element (the
// attributes and their descriptions, shared with the other host schemas),
// and the list, packed for the framework (see package packed).

// The ip and bk_cloud_id of a host mean the same in every schema.
const (
	hostIPDesc    = "IPv4 or IPv6 address of the host, without a zone (`%eth0`)."
	hostCloudDesc = "Cloud area (管控区域) id of the host, `0` or more; `0` is the default area."
	// The hosts of GSE processes may instead be given by agent id (GSE 2.0).
	gseHostIPDesc    = hostIPDesc + " Set it with `bk_cloud_id`, or set `agent_id` instead. An IPv6 host needs the provider's `gateway_url` (GSE 1.0 APIs cannot address IPv6)."
	gseHostCloudDesc = hostCloudDesc + " Required with `ip`; unset with `agent_id`."
	hostSupplierDesc = "Developer (supplier) id of the host, used by the v1 register APIs; 0 or more. Defaults to `0`."
	hostAgentDesc    = "GSE 2.0 agent id of the host, instead of `ip` and `bk_cloud_id`: 36 hex characters (such as `0200000007525400f355781710390005465c`), " +
		"or `{bk_cloud_id}:{ip}` where agent-id mode is off; at most 64 characters. Needs the provider's `gateway_url`. " +
		"The same host given by `{bk_cloud_id}:{ip}` and by `ip` is rejected as a duplicate."
)

// hostElement is each attribute of a gse_managed_process.hosts element: the
// one definition ObjectType, hostListType.UnpackedSchema (Terraform's
// view) and hostCodec (the wire) are built from. They are in name order, the
// order Terraform encodes them in.
var hostElement = []hostAttr{
	{"agent_id", types.StringType, hostAgentDesc, false, func(h *Model) any { return &h.AgentID }},
	{"bk_cloud_id", types.Int64Type, gseHostCloudDesc, false, func(h *Model) any { return &h.BkCloudID }},
	{"bk_supplier_id", types.Int64Type, hostSupplierDesc, true, func(h *Model) any { return &h.BkSupplierID }},
	{"ip", types.StringType, gseHostIPDesc + " `::ffff:10.0.0.1` is the same host as `10.0.0.1` and is sent to GSE as `10.0.0.1`.", false, func(h *Model) any { return &h.IP }},
}

// hostAttr is an attribute of a gse_managed_process.hosts element.
type hostAttr struct {
	name     string
	typ      attr.Type
	desc     string
	computed bool               // planned by the provider
	field    func(h *Model) any // *types.String or *types.Int64
}

// ObjectType is the element type of gse_managed_process.hosts.
var ObjectType = func() types.ObjectType {
	t := types.ObjectType{AttrTypes: map[string]attr.Type{}}
	for _, a := range hostElement {
		t.AttrTypes[a.name] = a.typ
	}
	return t
}()

// hostListType is the framework's type of gse_managed_process.hosts,
// packed (see package packed).
type hostListType = packed.Of[List]

var _ basetypes.StringTypable = hostListType{}

// UnpackedSchema makes hosts a list nested attribute for Terraform: it
// thereby keeps optional element attributes, bk_supplier_id planned by the
// provider (computed), and the per-element documentation.
func (List) UnpackedSchema(ctx context.Context, a *tfprotov6.SchemaAttribute) {
	obj := &tfprotov6.SchemaObject{Nesting: tfprotov6.SchemaObjectNestingModeList}
	for _, e := range hostElement {
		// Every element attribute is optional: a host is ip + bk_cloud_id or
		// agent_id, which Check enforces.
		obj.Attributes = append(obj.Attributes, &tfprotov6.SchemaAttribute{Name: e.name, Type: e.typ.TerraformType(ctx), Description: e.desc,
			DescriptionKind: tfprotov6.StringKindMarkdown, Optional: true, Computed: e.computed})
	}
	a.Type, a.NestedType = nil, obj
}

func (List) UnpackedType(ctx context.Context) tftypes.Type {
	return tftypes.List{ElementType: ObjectType.TerraformType(ctx)}
}

// List is a packed gse_managed_process.hosts: the wire bytes (the
// string), and the hosts decoded from them once.
type List struct {
	basetypes.StringValue
	hosts []Model
	// unknown marks the elements that are unknown as a whole (only in a plan).
	Unknown []bool
}

var _ packed.Value[List] = List{}

func (List) Type(context.Context) attr.Type { return hostListType{} }

func (l List) Equal(o attr.Value) bool {
	other, ok := o.(List)
	return ok && l.StringValue.Equal(other.StringValue)
}

var _ plumbing.ElementsValue = List{}

// NewList packs known hosts.
func NewList(hosts []Model) List {
	return List{StringValue: Pack(hosts, nil), hosts: hosts}
}

// Pack is the packed string of hosts; unknown marks the elements unknown
// as a whole.
func Pack(hosts []Model, unknown []bool) types.String {
	var buf bytes.Buffer
	buf.Grow(64 * len(hosts))
	e := msgpack.NewEncoder(&buf)
	_ = e.EncodeArrayLen(len(hosts)) // see packed.ObjectCodec.Encode
	for i := range hosts {
		if unknown != nil && unknown[i] {
			packed.WriteUnknown(&buf)
			continue
		}
		hostCodec.Encode(e, &buf, &hosts[i])
	}
	return packed.String(buf.Bytes())
}

// hostListOf is the packed list s holds.
func hostListOf(ctx context.Context, s types.String) (List, diag.Diagnostics) {
	v, diags := hostListType{}.ValueFromString(ctx, s)
	l, _ := v.(List)
	return l, diags
}

// Hosts are the hosts of a known list; those of a null or unknown one are none.
func (l List) Hosts() []Model { return l.hosts }

// Elements are the hosts as objects of ObjectType, for the checks and plan
// modifiers shared with the other host lists (Check, Fields).
func (l List) Elements() []attr.Value {
	return hostCodec.Elements(l.hosts, l.Unknown, ObjectType)
}

// String is a summary: the packed bytes are no text.
func (l List) String() string {
	if l.IsNull() || l.IsUnknown() {
		return l.StringValue.String()
	}
	return "<" + plumbing.HostCount(len(l.hosts)) + ">"
}

// hostCodec encodes and decodes the elements of hosts.
var hostCodec = func() (c packed.ObjectCodec[Model]) {
	for _, a := range hostElement {
		c = append(c, packed.Field[Model]{Name: a.name, Field: a.field})
	}
	return c
}()

// Unpack decodes a packed list; null and unknown stay so.
func (List) Unpack(s basetypes.StringValue) (List, error) {
	l, d := List{StringValue: s}, packed.Decoder(s)
	if d == nil {
		return l, nil
	}
	if _, err := hostCodec.DecodeList(d, &l.hosts, &l.Unknown); err != nil {
		return l, fmt.Errorf("hosts: %w", err)
	}
	return l, nil
}
