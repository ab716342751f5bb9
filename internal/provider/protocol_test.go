package provider

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
)

// Every attribute a resource declares packed (packed.Type) reaches Terraform
// with the type the packed type names, hosts as a list nested attribute with
// the element attributes of hostObjectType, and no other attribute is
// rewritten: renaming the attribute, the resource or an element attribute on
// one side only fails here.
func TestProtocolUnpacksExactlyThePackedAttributes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := New("test")()
	schemas := func(serve func(provider.Provider) func() (tfprotov6.ProviderServer, error)) *tfprotov6.GetProviderSchemaResponse {
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
	got, plain := schemas(packed.NewProtocol6), schemas(providerserver.NewProtocol6WithError)
	var elementNames []string
	for name := range hostObjectType.AttrTypes {
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
			if a.NestedType == nil {
				continue
			}
			var names []string
			for _, e := range a.NestedType.Attributes {
				names = append(names, e.Name)
				if want := hostObjectType.AttrTypes[e.Name]; want == nil || !e.Type.Equal(want.TerraformType(ctx)) || e.Description == "" {
					t.Errorf("%s.%s element %s: type %v, described %q; the framework's type is %v", md.TypeName, a.Name, e.Name, e.Type, e.Description, want)
				}
			}
			if slices.Sort(names); !slices.Equal(names, elementNames) {
				t.Errorf("%s.%s: Terraform sees elements %v, the framework %v", md.TypeName, a.Name, names, elementNames)
			}
		}
	}
	if slices.Sort(packedAttrs); !slices.Equal(packedAttrs, []string{"gse_managed_process.host_status", "gse_managed_process.hosts"}) {
		t.Errorf("packed %v, want gse_managed_process.host_status and .hosts", packedAttrs)
	}
}
