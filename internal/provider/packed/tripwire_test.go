package packed

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// handled are the RPCs server answers itself, each with what it does there.
var handled = map[string]string{
	"GetMetadata":            "announces GenerateResourceConfig",
	"GetProviderSchema":      "gives each packed attribute the type Terraform sees; announces GenerateResourceConfig",
	"ValidateResourceConfig": "packs the config",
	"UpgradeResourceState":   "passes a state of the current version through; otherwise packs the framework's answer",
	"ReadResource":           "packs the state, unpacks the new state, numbers as text",
	"PlanResourceChange":     "packs config, prior state and proposed state; unpacks the planned state",
	"ApplyResourceChange":    "packs config, prior state and planned state; unpacks the new state",
	"ImportResourceState":    "unpacks the imported states",
	"MoveResourceState":      "unpacks the target state (the source state is the source type's JSON, not packed)",
	"GenerateResourceConfig": "packs the state, unpacks the config, asks the resource's ConfigGenerator",
	"ListResource":           "unpacks each listed resource",
	"ReadDataSource":         "numbers as text",
}

// passedThrough are the RPCs whose values may hold no attribute of a
// resource, each with why: packed attributes are found in resource schemas
// only (findAttrs).
var passedThrough = map[string]string{
	"ValidateProviderConfig":          "the provider's configuration",
	"ConfigureProvider":               "the provider's configuration",
	"ValidateDataResourceConfig":      "a data source's configuration",
	"ValidateEphemeralResourceConfig": "an ephemeral resource's configuration",
	"OpenEphemeralResource":           "an ephemeral resource's values",
	"CallFunction":                    "a function's arguments and result",
	"UpgradeResourceIdentity":         "a resource's identity, whose schema is its own",
	"ValidateListResourceConfig":      "a list block's configuration (ListResource carries the resources)",
	"ValidateActionConfig":            "an action's configuration",
	"PlanAction":                      "an action's configuration",
	"InvokeAction":                    "an action's configuration",
	"ValidateStateStoreConfig":        "a state store's configuration",
	"ConfigureStateStore":             "a state store's configuration",
}

// Every RPC of terraform-plugin-go's server interfaces whose request or
// response carries a value (a DynamicValue or a RawState, at any depth) is
// either handled by server or passed through for a stated reason: an RPC
// added by a later terraform-plugin-go fails here, not for users. The lists
// name exactly server's own methods and RPCs that carry values.
func TestEveryRPCWithValuesIsHandled(t *testing.T) {
	t.Parallel()
	interfaces := serverInterfaces(t)
	serverType := reflect.TypeFor[server]()
	rpcs := map[string]bool{} // name: carries values
	for _, it := range interfaces {
		if !serverType.Implements(it) {
			t.Errorf("server does not implement tfprotov6.%s: tf6server would not offer its RPCs (frameworkServer)", it.Name())
		}
		for i := range it.NumMethod() {
			m := it.Method(i)
			rpcs[m.Name] = carriesValues(m.Type, map[reflect.Type]bool{})
		}
	}
	own := ownMethods(t)
	for name, values := range rpcs {
		_, h := handled[name]
		reason, p := passedThrough[name]
		switch {
		case values && !h && !p:
			t.Errorf("%s carries values: handle it in server (and list it in handled), or list it in passedThrough with the reason its values hold no resource attribute", name)
		case h && p:
			t.Errorf("%s is both handled and passed through", name)
		case p && (!values || reason == ""):
			t.Errorf("%s is passed through, but carries values %v, reason %q", name, values, reason)
		case p && own[name]:
			t.Errorf("%s is passed through, but server declares it", name)
		}
	}
	for name := range handled {
		if !own[name] {
			t.Errorf("%s is listed as handled, but server does not declare it", name)
		}
	}
	for name := range own {
		if _, ok := handled[name]; !ok {
			t.Errorf("server declares %s: list it in handled", name)
		}
	}
	for name := range passedThrough {
		if _, ok := rpcs[name]; !ok {
			t.Errorf("%s is passed through, but no server interface has it", name)
		}
	}
}

// serverInterfaces are the server interfaces tfprotov6 declares: every
// interface type whose name holds "Server", read from its source so that one
// added later is not missed, less those deprecated (ProviderServerWith…,
// which only combine ProviderServer with one of the others).
func serverInterfaces(t *testing.T) []reflect.Type {
	t.Helper()
	known := map[string]reflect.Type{
		"ProviderServer":          reflect.TypeFor[tfprotov6.ProviderServer](),
		"ResourceServer":          reflect.TypeFor[tfprotov6.ResourceServer](),
		"DataSourceServer":        reflect.TypeFor[tfprotov6.DataSourceServer](),
		"EphemeralResourceServer": reflect.TypeFor[tfprotov6.EphemeralResourceServer](),
		"FunctionServer":          reflect.TypeFor[tfprotov6.FunctionServer](),
		"ListResourceServer":      reflect.TypeFor[tfprotov6.ListResourceServer](),
		"ActionServer":            reflect.TypeFor[tfprotov6.ActionServer](),
		"StateStoreServer":        reflect.TypeFor[tfprotov6.StateStoreServer](),
	}
	pkg, err := build.Import("github.com/hashicorp/terraform-plugin-go/tfprotov6", ".", build.FindOnly)
	if err != nil {
		t.Fatal(err)
	}
	declared := typeDecls(t, pkg.Dir, func(s *ast.TypeSpec, doc *ast.CommentGroup) bool {
		_, ok := s.Type.(*ast.InterfaceType)
		return ok && strings.Contains(s.Name.Name, "Server") && !strings.Contains(doc.Text(), "Deprecated:")
	})
	for _, name := range declared {
		if known[name] == nil {
			t.Errorf("tfprotov6 declares %s: add it to frameworkServer and to this test", name)
		}
	}
	if len(declared) != len(known) {
		t.Errorf("tfprotov6 declares %v, the test knows %d", declared, len(known))
	}
	out := make([]reflect.Type, 0, len(known))
	for _, it := range known {
		out = append(out, it)
	}
	return out
}

// typeDecls are the names of the types the non-test Go files of dir declare
// that keep says to, given each one's doc comment.
func typeDecls(t *testing.T, dir string, keep func(*ast.TypeSpec, *ast.CommentGroup) bool) []string {
	t.Helper()
	var out []string
	for _, f := range parseDir(t, dir) {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok {
				for _, s := range g.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok {
						continue
					}
					doc := ts.Doc
					if doc == nil {
						doc = g.Doc
					}
					if keep(ts, doc) {
						out = append(out, ts.Name.Name)
					}
				}
			}
		}
	}
	return out
}

// ownMethods are the RPCs this package declares on server (its exported methods).
func ownMethods(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, f := range parseDir(t, ".") {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			if id, ok := fn.Recv.List[0].Type.(*ast.Ident); ok && id.Name == "server" && fn.Name.IsExported() {
				out[fn.Name.Name] = true
			}
		}
	}
	return out
}

func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []*ast.File
	fset := token.NewFileSet()
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, dir+"/"+name, nil, parser.SkipObjectResolution|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, f)
		}
	}
	return out
}

// carriesValues reports whether a value of t holds, at any depth, a
// DynamicValue or a RawState (a value of some schema).
func carriesValues(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == reflect.TypeFor[tfprotov6.DynamicValue]() || t == reflect.TypeFor[tfprotov6.RawState]() {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	var parts []reflect.Type
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
		parts = append(parts, t.Elem())
	case reflect.Map:
		parts = append(parts, t.Key(), t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			parts = append(parts, t.Field(i).Type)
		}
	case reflect.Func: // also an iterator of results (ListResource)
		for i := range t.NumIn() {
			parts = append(parts, t.In(i))
		}
		for i := range t.NumOut() {
			parts = append(parts, t.Out(i))
		}
	case reflect.Interface:
		for i := range t.NumMethod() {
			parts = append(parts, t.Method(i).Type)
		}
	}
	return slices.ContainsFunc(parts, func(p reflect.Type) bool { return carriesValues(p, seen) })
}
