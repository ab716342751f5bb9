package jobmanagedprocess

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A version 0 state (manage_proc: proc_owner, no account), here one imported
// without pid_path, loads as version 1: contact from proc_owner, account root,
// everything else as it was.
func TestJobManagedProcessUpgradeV0(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := &jobManagedProcessResource{}
	var sch resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sch)
	if sch.Schema.Version != 1 {
		t.Fatalf("schema version %d, want 1", sch.Schema.Version)
	}
	typ, ok := sch.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the schema is not an object")
	}
	v0 := map[string]any{}
	for name := range typ.AttributeTypes {
		v0[name] = nil
	}
	delete(v0, "contact")
	delete(v0, "account")
	for k, v := range map[string]any{"id": "biz:2//data/nginx/bin/nginx", "bk_scope_type": "biz", "bk_scope_id": "2", "proc_owner": "ops",
		"setup_path": "/data/nginx/bin", "proc_name": "nginx", "type": 0, "cycle_time": 60,
		"ip_list": []any{map[string]any{"ip": "10.0.0.1", "bk_cloud_id": 0}}} {
		v0[k] = v
	}
	raw, _ := json.Marshal(v0)
	var resp resource.UpgradeStateResponse
	r.UpgradeState(ctx)[0].StateUpgrader(ctx, resource.UpgradeStateRequest{RawState: &tfprotov6.RawState{JSON: raw}}, &resp)
	if resp.Diagnostics.HasError() || resp.DynamicValue == nil {
		t.Fatalf("upgrade: %v", resp.Diagnostics)
	}
	val, err := resp.DynamicValue.Unmarshal(typ)
	if err != nil {
		t.Fatalf("the upgraded state does not fit schema version 1: %v", err)
	}
	var attrs map[string]tftypes.Value
	if err := val.As(&attrs); err != nil {
		t.Fatal(err)
	}
	str := func(name string) string {
		var s *string
		if err := attrs[name].As(&s); err != nil || s == nil {
			return "<null>"
		}
		return *s
	}
	for name, want := range map[string]string{"contact": "ops", "account": "root", "proc_name": "nginx", "pid_path": "<null>", "id": "biz:2//data/nginx/bin/nginx"} {
		if got := str(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}
