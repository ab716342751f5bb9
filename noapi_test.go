//go:build noapi

package main

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/bk-gse/terraform-provider-gse/internal/provider"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
)

// The build without API work answers an apply with the planned state, its
// unknowns made known, and a refresh with the state as it was.
func TestNoAPI(t *testing.T) {
	ctx := context.Background()
	inner, err := packed.NewProtocol6(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	s, ok := serve(inner).(*noAPI)
	if !ok {
		t.Fatal("built with -tags noapi, serve must wrap the server")
	}
	const name = "gse_managed_process"
	typ, err := s.typeOf(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	plan := acctest.BenchValue(typ, map[string]any{
		"id": tftypes.UnknownValue, "host_status": tftypes.UnknownValue,
		"hosts": []any{map[string]any{"ip": "10.0.0.1", "bk_cloud_id": 2}},
	})
	planned, err := tfprotov6.NewDynamicValue(typ, plan)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{TypeName: name, PlannedState: &planned})
	if err != nil {
		t.Fatal(err)
	}
	got, err := resp.NewState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !got.IsFullyKnown() {
		t.Fatalf("the new state keeps unknown values: %v", got)
	}
	var gotAttrs map[string]tftypes.Value
	var entries map[string]tftypes.Value
	if err := got.As(&gotAttrs); err != nil {
		t.Fatal(err)
	}
	if err := gotAttrs["host_status"].As(&entries); err != nil || len(entries) != 1 || entries["2:10.0.0.1"].IsNull() {
		t.Fatalf("host_status %v, want an entry for the host 2:10.0.0.1 (%v)", gotAttrs["host_status"], err)
	}
	read, err := s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: name, CurrentState: resp.NewState})
	if err != nil || read.NewState != resp.NewState {
		t.Fatalf("refresh changed the state: %v", err)
	}
}
