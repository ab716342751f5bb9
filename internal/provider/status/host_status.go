package status

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// Name names GSE's process states (flag and status).
func Name(s int) string {
	switch s {
	case gse.StateUnregistered:
		return "unregistered"
	case gse.StateRunning:
		return "running"
	case gse.StateStopped:
		return "stopped"
	}
	return fmt.Sprintf("unknown (%d)", s)
}

// host_status of gse_managed_process, a value per host, is packed for the
// framework as hosts is (see package packed).

// hostStatusType is the element type of host_status.
var hostStatusType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"status": types.StringType, "managed": types.BoolType,
}}

// HostEntry is one value of host_status: what the resource converges and
// judges drift on. Runtime facts that change without anyone acting (pid,
// version, start time) are the gse_process_status data source's: in the state
// they made every refresh after a keepalive restart report a change, and
// every apply read the status back only to learn them.
type HostEntry struct {
	Managed types.Bool
	Status  types.String
}

// statusCodec encodes and decodes the values of host_status, whose type
// (hostStatusType) has these attributes.
var statusCodec = packed.ObjectCodec[HostEntry]{
	{Name: "managed", Field: func(s *HostEntry) any { return &s.Managed }},
	{Name: "status", Field: func(s *HostEntry) any { return &s.Status }},
}

// HostStatusType is the framework's type of host_status, packed (see
// package packed): a map of hostStatusType to Terraform.
type HostStatusType = packed.Of[HostStatus]

func (m HostStatus) UnpackedSchema(ctx context.Context, a *tfprotov6.SchemaAttribute) {
	a.Type = m.UnpackedType(ctx)
}

func (HostStatus) UnpackedType(ctx context.Context) tftypes.Type {
	return tftypes.Map{ElementType: hostStatusType.TerraformType(ctx)}
}

// HostStatus is a packed host_status: the wire bytes (the string) and the
// entries decoded from them once.
type HostStatus struct {
	basetypes.StringValue
	Entries map[string]HostEntry
}

var _ packed.Value[HostStatus] = HostStatus{}

func (HostStatus) Type(context.Context) attr.Type { return HostStatusType{} }

func (m HostStatus) Equal(o attr.Value) bool {
	other, ok := o.(HostStatus)
	return ok && m.StringValue.Equal(other.StringValue)
}

// String is a summary: the packed bytes are no text.
func (m HostStatus) String() string {
	if m.IsNull() || m.IsUnknown() {
		return m.StringValue.String()
	}
	return "<status of " + plumbing.HostCount(len(m.Entries)) + ">"
}

// NewHostStatus packs entries, in key order as Terraform encodes a map.
func NewHostStatus(entries map[string]HostEntry) HostStatus {
	var buf bytes.Buffer
	buf.Grow(40 * len(entries))
	e := msgpack.NewEncoder(&buf)
	_ = e.EncodeMapLen(len(entries)) // see packed.ObjectCodec.Encode
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		_ = e.EncodeString(k)
		v := entries[k]
		statusCodec.Encode(e, &buf, &v)
	}
	return HostStatus{StringValue: packed.String(buf.Bytes()), Entries: entries}
}

// Unpack decodes a packed host_status; null and unknown stay so.
func (HostStatus) Unpack(s basetypes.StringValue) (HostStatus, error) {
	m, d := HostStatus{StringValue: s}, packed.Decoder(s)
	if d == nil {
		return m, nil
	}
	n, err := d.DecodeMapLen()
	if err != nil || n < 0 {
		return m, fmt.Errorf("host_status is not a map (%v)", err)
	}
	m.Entries = make(map[string]HostEntry, n)
	for range n {
		k, err := d.DecodeString()
		if err != nil {
			return m, fmt.Errorf("host_status: %w", err)
		}
		var v HostEntry
		if _, err := statusCodec.Decode(d, &v); err != nil {
			return m, fmt.Errorf("host_status[%q]: %w", k, err)
		}
		m.Entries[k] = v
	}
	return m, nil
}
