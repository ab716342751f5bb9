package packed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/vmihailenco/msgpack/v5"
)

// The package's tests serve testProvider: one resource, test_thing, with an
// attribute of every shape a provider's schema has and one packed attribute,
// items (a list of {name, n} objects, an itemList to the framework).

type testProvider struct{}

func (testProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "test"
}

func (testProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (testProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (testProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return &thing{} }}
}

func (testProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// thing is test_thing. Its CRUD keeps what it is given: the tests look at the
// values the server passes, not at what a resource does with them.
type thing struct{}

var (
	_ resource.ResourceWithMoveState = (*thing)(nil)
	_ ConfigGenerator                = (*thing)(nil)
)

func (*thing) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_thing"
}

func (*thing) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	pair := map[string]schema.Attribute{"a": schema.StringAttribute{Optional: true}, "n": schema.Int64Attribute{Optional: true}}
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id":     schema.StringAttribute{Computed: true},
		"name":   schema.StringAttribute{Required: true},
		"size":   schema.Int64Attribute{Optional: true},
		"ratio":  schema.Float64Attribute{Optional: true},
		"flag":   schema.BoolAttribute{Optional: true},
		"tags":   schema.ListAttribute{Optional: true, ElementType: types.StringType},
		"set":    schema.SetAttribute{Optional: true, ElementType: types.StringType},
		"labels": schema.MapAttribute{Optional: true, ElementType: types.Int64Type},
		"nested": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{
			"pairs": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: pair}},
			"keyed": schema.MapNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: pair}},
		}},
		"items": schema.StringAttribute{Optional: true, CustomType: Of[itemList]{}},
	}}
}

func (*thing) Create(_ context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
}

// Read logs, and says what its context holds (quiet_test.go).
func (*thing) Read(ctx context.Context, _ resource.ReadRequest, resp *resource.ReadResponse) {
	tflog.Info(ctx, "test_thing read")
	_, deadline := ctx.Deadline()
	resp.Diagnostics.AddWarning("Read's context", fmt.Sprintf("deadline %v, value %v, err %v", deadline, ctx.Value(testKey{}), ctx.Err()))
}

// testKey is a value of a test's context.
type testKey struct{}

func (*thing) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (*thing) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// MoveState moves a test_old, whose state is {"name": ..., "items": [...]},
// to a test_thing.
func (*thing) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{{StateMover: func(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
		if req.SourceTypeName != "test_old" || req.SourceRawState == nil {
			return
		}
		var old struct {
			Name  string `json:"name"`
			Items []struct {
				Name string `json:"name"`
				N    int64  `json:"n"`
			} `json:"items"`
		}
		if err := json.Unmarshal(req.SourceRawState.JSON, &old); err != nil {
			resp.Diagnostics.AddError("Invalid test_old state", err.Error())
			return
		}
		var items []item
		for _, i := range old.Items {
			items = append(items, item{Name: types.StringValue(i.Name), N: types.Int64Value(i.N)})
		}
		resp.Diagnostics.Append(resp.TargetState.SetAttribute(ctx, path.Root("name"), old.Name)...)
		resp.Diagnostics.Append(resp.TargetState.SetAttribute(ctx, path.Root("items"), newItemList(items))...)
	}}}
}

// GeneratedConfig sets flag to whether it was given items as Terraform sees
// them (a list), to show that it was asked, and with what.
func (*thing) GeneratedConfig(_ context.Context, v tftypes.Value) (tftypes.Value, error) {
	obj, ok := v.Type().(tftypes.Object)
	unpacked := ok && obj.AttributeTypes["items"].Is(tftypes.List{})
	return tftypes.Transform(v, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if p.Equal(tftypes.NewAttributePath().WithAttributeName("flag")) {
			return tftypes.NewValue(tftypes.Bool, unpacked), nil
		}
		return v, nil
	})
}

// item is an element of test_thing.items.
type item struct {
	Name types.String
	N    types.Int64
}

var itemCodec = ObjectCodec[item]{
	{Name: "n", Field: func(i *item) any { return &i.N }},
	{Name: "name", Field: func(i *item) any { return &i.Name }},
}

// itemList is test_thing.items, packed.
type itemList struct {
	basetypes.StringValue
	items   []item
	unknown []bool // elements unknown as a whole
}

var _ Value[itemList] = itemList{}

func (itemList) Type(context.Context) attr.Type { return Of[itemList]{} }

func (l itemList) Equal(o attr.Value) bool {
	other, ok := o.(itemList)
	return ok && l.StringValue.Equal(other.StringValue)
}

func (l itemList) UnpackedSchema(ctx context.Context, a *tfprotov6.SchemaAttribute) {
	a.Type = l.UnpackedType(ctx)
}

func (itemList) UnpackedType(context.Context) tftypes.Type {
	return tftypes.List{ElementType: tftypes.Object{AttributeTypes: map[string]tftypes.Type{"n": tftypes.Number, "name": tftypes.String}}}
}

func newItemList(items []item) itemList {
	var buf bytes.Buffer
	e := msgpack.NewEncoder(&buf)
	_ = e.EncodeArrayLen(len(items))
	for i := range items {
		itemCodec.Encode(e, &buf, &items[i])
	}
	return itemList{StringValue: String(buf.Bytes()), items: items}
}

func (itemList) Unpack(s basetypes.StringValue) (itemList, error) {
	l, d := itemList{StringValue: s}, Decoder(s)
	if d == nil {
		return l, nil
	}
	n, err := d.DecodeArrayLen()
	if err != nil || n < 0 {
		return l, fmt.Errorf("items is not a list (%v)", err)
	}
	l.items, l.unknown = make([]item, n), make([]bool, n)
	for i := range l.items {
		if l.unknown[i], err = itemCodec.Decode(d, &l.items[i]); err != nil {
			return l, fmt.Errorf("items[%d]: %w", i, err)
		}
	}
	return l, nil
}

// newTestServer is the package's server for testProvider, whose schema is valid.
func newTestServer(t testing.TB) server {
	t.Helper()
	s, err := NewProtocol6(testProvider{})()
	if err != nil {
		t.Fatal(err)
	}
	srv, ok := s.(server)
	if !ok {
		t.Fatalf("%T", s)
	}
	if resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{}); err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("the test provider's schema: %v %v", err, resp.Diagnostics)
	}
	return srv
}

// thingFixture is a test_thing value as Terraform sends it, with items in
// every form (known, an unknown attribute, an element unknown as a whole, a
// number beyond int64's text) beside attributes that are not packed.
func thingFixture(t *testing.T) (tftypes.Object, tftypes.Value) {
	t.Helper()
	typ, attrs := nullThing(t, newTestServer(t))
	itemsType, _ := typ.AttributeTypes["items"].(tftypes.List)
	itemType, _ := itemsType.ElementType.(tftypes.Object)
	it := func(name, n any) tftypes.Value {
		return tftypes.NewValue(itemType, map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, name), "n": tftypes.NewValue(tftypes.Number, n)})
	}
	attrs["name"] = tftypes.NewValue(tftypes.String, "t")
	attrs["size"] = tftypes.NewValue(tftypes.Number, big.NewFloat(3))
	attrs["items"] = tftypes.NewValue(itemsType, []tftypes.Value{
		it("a", big.NewFloat(1)), it(nil, big.NewFloat(1<<40)), it(tftypes.UnknownValue, nil),
		tftypes.NewValue(itemType, tftypes.UnknownValue),
	})
	return typ, tftypes.NewValue(typ, attrs)
}

// nullThing is test_thing's type as Terraform sees it, and its attributes,
// all null.
func nullThing(t *testing.T, s server) (tftypes.Object, map[string]tftypes.Value) {
	t.Helper()
	schemas, err := s.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := schemas.ResourceSchemas["test_thing"].ValueType().(tftypes.Object)
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	return typ, attrs
}
