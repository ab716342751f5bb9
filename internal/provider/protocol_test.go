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
)

// Every attribute a resource declares with hostsSchema reaches Terraform as a
// list nested attribute with the element attributes of hostObjectType, and
// no other attribute is rewritten: renaming the attribute, the resource or an
// element attribute on one side only fails here.
func TestProtocolNestsExactlyTheHostsLists(t *testing.T) {
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
	got, plain := schemas(NewProtocol6), schemas(providerserver.NewProtocol6WithError)
	var elementNames []string
	for name := range hostObjectType.AttrTypes {
		elementNames = append(elementNames, name)
	}
	slices.Sort(elementNames)
	nested := 0
	for _, newRes := range p.Resources(ctx) {
		r := newRes()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "gse"}, &md)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		for i, a := range got.ResourceSchemas[md.TypeName].Block.Attributes {
			declared, ok := sr.Schema.Attributes[a.Name].(schema.StringAttribute)
			isHosts := ok && declared.CustomType != nil && declared.CustomType.Equal(hostListType{})
			rewritten := a.NestedType != nil && plain.ResourceSchemas[md.TypeName].Block.Attributes[i].NestedType == nil
			if isHosts != rewritten {
				t.Errorf("%s.%s: declared as hosts %v, rewritten for Terraform %v", md.TypeName, a.Name, isHosts, rewritten)
				continue
			}
			if !isHosts {
				continue
			}
			nested++
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
	if nested != 1 {
		t.Errorf("%d hosts lists nested, want 1 (gse_managed_process.hosts)", nested)
	}
}
