package managedprocess_test

import (
	"context"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
)

// The configuration generated for an imported process (Terraform 1.14+)
// holds spec's skeleton, so the plan names each required value to fill in,
// and leaves out what the provider plans anyway.
func TestManagedProcessGeneratedConfig(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, err := packed.NewProtocol6(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	sch, _ := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	typ, _ := sch.ResourceSchemas["gse_managed_process"].ValueType().(tftypes.Object)
	state := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		state[name] = tftypes.NewValue(at, nil)
	}
	hostsType, _ := typ.AttributeTypes["hosts"].(tftypes.List)
	hostType, _ := hostsType.ElementType.(tftypes.Object)
	state["hosts"] = tftypes.NewValue(typ.AttributeTypes["hosts"], []tftypes.Value{tftypes.NewValue(hostType, map[string]tftypes.Value{
		"ip": tftypes.NewValue(tftypes.String, "10.0.0.2"), "bk_cloud_id": tftypes.NewValue(tftypes.Number, big.NewFloat(0)),
		"bk_supplier_id": tftypes.NewValue(tftypes.Number, big.NewFloat(0)), "agent_id": tftypes.NewValue(tftypes.String, nil),
	})})
	state["managed"] = tftypes.NewValue(tftypes.Bool, true)
	state["id"] = tftypes.NewValue(tftypes.String, "gse/proc-test")
	metaType, _ := typ.AttributeTypes["meta"].(tftypes.Object)
	state["meta"] = tftypes.NewValue(metaType, map[string]tftypes.Value{"namespace": tftypes.NewValue(tftypes.String, "gse"),
		"name": tftypes.NewValue(tftypes.String, "proc-test"), "labels": tftypes.NewValue(metaType.AttributeTypes["labels"], nil)})
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, state))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.GenerateResourceConfig(ctx, &tfprotov6.GenerateResourceConfigRequest{TypeName: "gse_managed_process", State: &dv})
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("GenerateResourceConfig: %v %v", err, resp.Diagnostics)
	}
	v, err := resp.Config.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	at := func(steps ...any) tftypes.Value {
		p := tftypes.NewAttributePath()
		for _, s := range steps {
			switch s := s.(type) {
			case string:
				p = p.WithAttributeName(s)
			case int:
				p = p.WithElementKeyInt(s)
			}
		}
		got, _, err := tftypes.WalkAttributePath(v, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out, _ := got.(tftypes.Value)
		return out
	}
	for _, obj := range []string{"identity", "control", "resource", "monitor_policy"} {
		if at("spec", obj).IsNull() {
			t.Errorf("spec.%s is null: the plan would not name its required attributes", obj)
		}
	}
	for _, null := range [][]any{{"spec", "identity", "proc_name"}, {"spec", "warn_report_policy"}, {"spec", "configmap"},
		{"managed"}, {"hosts", 0, "bk_supplier_id"}, {"host_status"}, {"id"}} {
		if !at(null...).IsNull() {
			t.Errorf("%v = %v, want null", null, at(null...))
		}
	}
	if !at("hosts", 0, "ip").Equal(tftypes.NewValue(tftypes.String, "10.0.0.2")) || !at("meta", "name").Equal(tftypes.NewValue(tftypes.String, "proc-test")) {
		t.Errorf("hosts or meta not kept: %v", v)
	}
}

// Import with -generate-config-out on every CLI, as the adoption story in the
// README and the docs tells it: the plan fails until the spec is filled in
// (Terraform 1.14+ names each value left, on its line of the provider's
// skeleton; older CLIs and OpenTofu write spec = null themselves), and filled
// in as the docs show, the file imports without a restart.
func TestAccManagedProcess_generatedConfig(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		e.Register(t, gse.Meta{Namespace: "gse", Name: "proc-imported"}, []string{"0:10.0.0.1"}, nil)
		cli := acctest.NewCLIRunFrom(t, e, "1.5.0", `
import {
  to = gse_managed_process.imported
  id = "gse/proc-imported@0:0:10.0.0.1"
}
`)
		out, err := cli.Run("plan", "-generate-config-out=generated.tf", "-no-color", "-input=false")
		if err == nil {
			t.Fatalf("plan with an empty spec succeeded:\n%s", out)
		}
		b, rerr := os.ReadFile(filepath.Join(cli.Dir, "generated.tf"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		gen := string(b)
		filled, rerr := os.ReadFile("../../../examples/resources/gse_managed_process/import-generated.tf")
		if rerr != nil {
			t.Fatal(rerr)
		}
		for _, want := range []string{`name\s+= "proc-imported"`, `ip\s+= "10.0.0.1"`} {
			if !regexp.MustCompile(want).MatchString(gen) {
				t.Errorf("generated.tf lacks %q:\n%s", want, gen)
			}
		}
		if cli.Below("1.14.0") {
			// The docs: replace the spec = null line with the spec block of the example.
			specNull := regexp.MustCompile(`(?m)^  spec\s+= null\n`)
			if !specNull.MatchString(gen) {
				t.Fatalf("generated.tf has no spec = null line to replace:\n%s", gen)
			}
			block := regexp.MustCompile(`(?s)\n  spec = \{\n.*?\n  \}\n`).FindString(string(filled))
			if block == "" {
				t.Fatal("import-generated.tf lost its spec block")
			}
			filled = []byte(specNull.ReplaceAllLiteralString(gen, block[1:]))
		} else {
			if n := strings.Count(out, "Missing Configuration for Required Attribute"); n != 7 {
				t.Errorf("%d required values named, want 7 (proc_name, setup_path, pid_path, user, auto_type, cpu, mem):\n%s", n, out)
			}
			for _, want := range []string{"spec = {", "proc_name   = null"} {
				if !strings.Contains(gen, want) {
					t.Errorf("generated.tf lacks %q:\n%s", want, gen)
				}
			}
			for _, noise := range []string{`bk_supplier_id`, `managed\s+= true`, `host_status`, `spec\s+= null`} {
				if regexp.MustCompile(noise).MatchString(gen) {
					t.Errorf("generated.tf matches %q:\n%s", noise, gen)
				}
			}
		}
		cli.WriteFile("generated.tf", string(filled))
		if out := cli.Must("plan", "-no-color", "-input=false"); !strings.Contains(out, "1 to import, 0 to add, 1 to change, 0 to destroy") {
			t.Errorf("plan of the filled-in configuration is not one import and one update (the spec sent again):\n%s", out)
		}
		if out := cli.Must("apply", "-auto-approve", "-no-color", "-input=false"); !strings.Contains(out, "1 imported") {
			t.Fatalf("apply of the filled-in configuration imported nothing:\n%s", out)
		}
		if out, code, _ := cli.Exit("plan", "-detailed-exitcode", "-no-color", "-input=false"); code != 0 {
			t.Errorf("plan after the import's apply: exit %d, want 0:\n%s", code, out)
		}
		cli.Must("destroy", "-auto-approve", "-no-color", "-input=false")
	})
}
