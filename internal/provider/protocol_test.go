package provider_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
)

// Every attribute a resource declares packed (packed.Type) reaches Terraform
// with the type the packed type names, hosts as a list nested attribute with
// the element attributes of hosts.ObjectType, spec exactly as the framework
// serves gse_process_operation's gse.spec (the same spec.Schema, not packed
// there), and no other attribute is
// rewritten: renaming the attribute, the resource or an element attribute on
// one side only fails here.
func TestProtocolUnpacksExactlyThePackedAttributes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := provider.New("test")()
	schemas := func(serve func(fwprovider.Provider) func() (tfprotov6.ProviderServer, error)) *tfprotov6.GetProviderSchemaResponse {
		server, err := serve(p)()
		if err != nil {
			t.Fatal(err)
		}
		resp, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	packedServer := func(p fwprovider.Provider) func() (tfprotov6.ProviderServer, error) { return packed.NewProtocol6(p) }
	got, plain := schemas(packedServer), schemas(providerserver.NewProtocol6WithError)
	var elementNames []string
	for name := range hosts.ObjectType.AttrTypes {
		elementNames = append(elementNames, name)
	}
	slices.Sort(elementNames)
	var packedAttrs []string
	for _, newRes := range p.Resources(ctx) {
		r := newRes()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "gse"}, &md)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		for i, a := range got.ResourceSchemas[md.TypeName].Block.Attributes {
			framework := plain.ResourceSchemas[md.TypeName].Block.Attributes[i]
			declared, _ := sr.Schema.Attributes[a.Name].(schema.StringAttribute)
			pt, isPacked := declared.CustomType.(packed.Type)
			if !isPacked {
				if !a.ValueType().Equal(framework.ValueType()) {
					t.Errorf("%s.%s: rewritten for Terraform to %v, though not packed", md.TypeName, a.Name, a.ValueType())
				}
				continue
			}
			packedAttrs = append(packedAttrs, md.TypeName+"."+a.Name)
			if !framework.ValueType().Equal(tftypes.String) || !a.ValueType().Equal(pt.UnpackedType(ctx)) {
				t.Errorf("%s.%s: the framework holds %v, Terraform sees %v, want %v", md.TypeName, a.Name, framework.ValueType(), a.ValueType(), pt.UnpackedType(ctx))
			}
			if a.Name == "spec" {
				if want := frameworkSpec(t, got); !reflect.DeepEqual(a.NestedType, want) {
					t.Errorf("%s.spec: Terraform sees %v, the framework serves specSchema as %v", md.TypeName, a.NestedType, want)
				}
				continue
			}
			if a.NestedType == nil {
				continue
			}
			if a.NestedType.Nesting == tfprotov6.SchemaObjectNestingModeMap {
				checkMapElements(t, md.TypeName+"."+a.Name, a, pt.UnpackedType(ctx))
				continue
			}
			var names []string
			for _, e := range a.NestedType.Attributes {
				names = append(names, e.Name)
				if want := hosts.ObjectType.AttrTypes[e.Name]; want == nil || !e.Type.Equal(want.TerraformType(ctx)) || e.Description == "" {
					t.Errorf("%s.%s element %s: type %v, described %q; the framework's type is %v", md.TypeName, a.Name, e.Name, e.Type, e.Description, want)
				}
			}
			if slices.Sort(names); !slices.Equal(names, elementNames) {
				t.Errorf("%s.%s: Terraform sees elements %v, the framework %v", md.TypeName, a.Name, names, elementNames)
			}
		}
	}
	want := []string{"gse_config_file.hosts", "gse_managed_process.host_status", "gse_managed_process.hosts", "gse_managed_process.spec", "gse_service.config_files", "gse_service.instances", "gse_service.processes"}
	if slices.Sort(packedAttrs); !slices.Equal(packedAttrs, want) {
		t.Errorf("packed %v, want %v", packedAttrs, want)
	}
}

// checkMapElements checks a packed map nested attribute: every element
// attribute Terraform sees is described and has the type of the packed
// value's elements, and no element attribute is missing.
func checkMapElements(t *testing.T, name string, a *tfprotov6.SchemaAttribute, unpacked tftypes.Type) {
	t.Helper()
	m, ok := unpacked.(tftypes.Map)
	obj, isObj := m.ElementType.(tftypes.Object)
	if !ok || !isObj {
		t.Errorf("%s: packed as %v, want a map of objects", name, unpacked)
		return
	}
	seen := map[string]bool{}
	for _, e := range a.NestedType.Attributes {
		seen[e.Name] = true
		if want := obj.AttributeTypes[e.Name]; want == nil || !e.ValueType().Equal(want) || e.Description == "" {
			t.Errorf("%s element %s: type %v, described %q; the packed value's type is %v", name, e.Name, e.ValueType(), e.Description, want)
		}
	}
	for n := range obj.AttributeTypes {
		if !seen[n] {
			t.Errorf("%s: the packed value holds %s, which Terraform does not see", name, n)
		}
	}
}

// frameworkSpec is the spec of gse_process_operation's gse as the framework serves it.
func frameworkSpec(t *testing.T, schemas *tfprotov6.GetProviderSchemaResponse) *tfprotov6.SchemaObject {
	t.Helper()
	for _, a := range schemas.ResourceSchemas["gse_process_operation"].Block.Attributes {
		if a.Name != "gse" {
			continue
		}
		for _, e := range a.NestedType.Attributes {
			if e.Name == "spec" {
				return e.NestedType
			}
		}
	}
	t.Fatal("gse_process_operation has no gse.spec")
	return nil
}
