package spec_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

var unknown = tftypes.UnknownValue

// specWith is a valid spec, changed by set (a value per attribute of spec,
// by dotted path; nil deletes it).
func specWith(set map[string]any) map[string]any {
	s := map[string]any{
		"identity":       map[string]any{"proc_name": "web", "setup_path": "/opt/web", "pid_path": "/opt/web/web.pid", "user": "root"},
		"control":        map[string]any{"start_cmd": "./start.sh"},
		"resource":       map[string]any{"cpu": 10.5, "mem": 10},
		"monitor_policy": map[string]any{"auto_type": 1},
	}
	for at, v := range set {
		obj, name, nested := strings.Cut(at, ".")
		if !nested {
			s[at] = v
			continue
		}
		m, ok := s[obj].(map[string]any)
		if !ok {
			m = map[string]any{}
			s[obj] = m
		}
		m[name] = v
	}
	return s
}

// A spec packed as Terraform sends it decodes with its unknown leaves
// unknown and its unset counts null, sent with their documented defaults, and
// a plan passes it back to Terraform unchanged.
func TestSpecPackedRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	server, typ := acctest.BenchServer(ctx, t, "gse_managed_process")
	config := acctest.BenchValue(typ, map[string]any{
		"meta":  map[string]any{"namespace": "gse", "name": "web"},
		"hosts": []any{map[string]any{"ip": "10.0.0.1", "bk_cloud_id": 0}},
		"spec":  specWith(map[string]any{"identity.setup_path": unknown, "resource.fd": unknown, "configmap": []any{map[string]any{"path": "/opt/web/a.conf"}}}),
	})
	var attrs map[string]tftypes.Value
	if err := config.As(&attrs); err != nil {
		t.Fatal(err)
	}
	packedSpec, err := tfprotov6.NewDynamicValue(spec.Value{}.UnpackedType(ctx), attrs["spec"])
	if err != nil {
		t.Fatal(err)
	}
	v, err := spec.Value{}.Unpack(types.StringValue(string(packedSpec.MsgPack)))
	if err != nil {
		t.Fatal(err)
	}
	s, sent := v.Model(), v.Expand()
	switch {
	case v.Partial || !s.Identity.SetupPath.IsUnknown() || !s.Resource.Fd.IsUnknown() || s.Identity.ProcName.ValueString() != "web":
		t.Errorf("decoded %+v", s)
	case !s.MonitorPolicy.StartCheckSecs.IsNull() || *sent.MonitorPolicy.StartCheckSecs != spec.DefaultStartCheckSecs || *sent.MonitorPolicy.OpTimeout != spec.DefaultOpTimeout:
		t.Errorf("defaults: state %v, sent %+v", s.MonitorPolicy.StartCheckSecs, sent.MonitorPolicy)
	case sent.Resource.CPU != 10.5 || sent.Resource.Mem != 10 || s.WarnReportPolicy != nil || len(sent.Configmap) != 1 || sent.Configmap[0].Path != "/opt/web/a.conf":
		t.Errorf("sent %+v %+v", sent.Resource, sent.Configmap)
	}

	dv := acctest.BenchDynamic(t, config)
	null := acctest.BenchDynamic(t, tftypes.NewValue(typ, nil))
	if resp, err := server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "gse_managed_process", Config: dv}); err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("validate: %v %v", err, resp.Diagnostics)
	}
	resp, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "gse_managed_process", Config: dv, ProposedNewState: dv, PriorState: null})
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("plan: %v %v", err, resp.Diagnostics)
	}
	planned, err := resp.PlannedState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	var plannedAttrs map[string]tftypes.Value
	if err := planned.As(&plannedAttrs); err != nil || !plannedAttrs["spec"].Equal(attrs["spec"]) {
		t.Errorf("planned spec %v, configured %v (%v)", plannedAttrs["spec"], attrs["spec"], err)
	}
	whole, _ := spec.Value{}.Unpack(types.StringValue(string(mustPack(t, specWith(map[string]any{"identity": unknown})))))
	if !whole.Partial || !whole.Model().Identity.ProcName.IsNull() {
		t.Errorf("an unknown identity: partial %v, proc_name %v; want true and null", whole.Partial, whole.Model().Identity.ProcName)
	}
}

func mustPack(t *testing.T, values map[string]any) []byte {
	t.Helper()
	typ := spec.Value{}.UnpackedType(context.Background())
	dv, err := tfprotov6.NewDynamicValue(typ, acctest.BenchValue(typ, values))
	if err != nil {
		t.Fatal(err)
	}
	return dv.MsgPack
}

// Packed, spec is checked exactly as the framework checks Schema not
// packed (gse_managed_process_spec below): the same diagnostics at the same
// paths, for invalid, missing, null and unknown values at any depth.
func TestSpecPackedChecksAsTheFramework(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	packedServer, typ := acctest.BenchServer(ctx, t, "gse_managed_process")
	plainServer, err := providerserver.NewProtocol6WithError(specOnlyProvider{})()
	if err != nil {
		t.Fatal(err)
	}
	sch, _ := plainServer.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	plainTyp := sch.ResourceSchemas["gse_spec"].ValueType()
	checked := 0
	for name, spec := range map[string]any{
		"valid": specWith(nil),
		"out of range": specWith(map[string]any{"resource.cpu": 150, "resource.mem": -1, "resource.fd": -1, "monitor_policy.auto_type": 7,
			"monitor_policy.start_retries": -2, "warn_report_policy.report_id": -1}),
		"paths and names":    specWith(map[string]any{"identity.setup_path": "opt", "identity.proc_name": "", "identity.log_path": "logs", "configmap": []any{map[string]any{"path": "a.conf"}, unknown}}),
		"required null":      specWith(map[string]any{"identity.user": nil, "identity.pid_path": nil, "resource.cpu": nil, "control": nil}),
		"no configmap":       specWith(map[string]any{"configmap": []any{}}),
		"unknown leaves":     specWith(map[string]any{"identity.setup_path": unknown, "resource.cpu": unknown, "monitor_policy.auto_type": unknown}),
		"unknown objects":    specWith(map[string]any{"identity": unknown, "configmap": unknown, "warn_report_policy": unknown}),
		"unknown spec":       unknown,
		"null spec":          nil,
		"empty required obj": specWith(map[string]any{"monitor_policy": map[string]any{}}),
	} {
		t.Run(name, func(t *testing.T) {
			// Unhosted, so that no operation asks the spec for a command.
			got := specDiags(t, packedServer, "gse_managed_process", acctest.BenchValue(typ, map[string]any{"spec": spec, "managed": false}))
			want := specDiags(t, plainServer, "gse_spec", acctest.BenchValue(plainTyp, map[string]any{"spec": spec}))
			checked += len(want)
			if !slices.Equal(got, want) {
				t.Errorf("packed:\n%s\nthe framework:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
	if checked < 16 {
		t.Errorf("the framework reported %d diagnostics in all, want at least 16: the cases check little", checked)
	}
}

// specDiags are the diagnostics of validating config, at spec or within it, sorted.
func specDiags(t *testing.T, s tfprotov6.ProviderServer, typeName string, config tftypes.Value) []string {
	t.Helper()
	resp, err := s.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: acctest.BenchDynamic(t, config)})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range resp.Diagnostics {
		if d.Attribute != nil && strings.HasPrefix(d.Attribute.String(), `AttributeName("spec")`) {
			out = append(out, d.Attribute.String()+" "+d.Severity.String()+" "+d.Summary+": "+d.Detail)
		}
	}
	slices.Sort(out)
	return out
}

// specOnlyProvider serves gse_spec, whose schema is Schema not packed.
type specOnlyProvider struct{}

func (specOnlyProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "gse"
}
func (specOnlyProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}
func (specOnlyProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}
func (specOnlyProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }
func (specOnlyProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return specOnly{} }}
}

type specOnly struct{}

func (specOnly) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_spec"
}

func (specOnly) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{"spec": spec.NestedAttribute("")}}
}
func (specOnly) Create(context.Context, resource.CreateRequest, *resource.CreateResponse) {}
func (specOnly) Read(context.Context, resource.ReadRequest, *resource.ReadResponse)       {}
func (specOnly) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {}
func (specOnly) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
