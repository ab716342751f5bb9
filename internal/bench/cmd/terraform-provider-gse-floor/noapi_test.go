package main

import (
	"context"
	"errors"
	"sync"
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
	s, ok := withoutAPI(inner).(*noAPI)
	if !ok {
		t.Fatal("withoutAPI must wrap the server")
	}
	const name = "gse_managed_process"
	types, err := resourceTypes(inner)
	if err != nil {
		t.Fatal(err)
	}
	typ := types[name]
	plan := acctest.BenchValue(typ, map[string]any{
		"id": tftypes.UnknownValue, "host_status": tftypes.UnknownValue,
		"hosts": []any{map[string]any{"ip": "10.0.0.1", "bk_cloud_id": 2}},
	})
	planned, err := tfprotov6.NewDynamicValue(typ, plan)
	if err != nil {
		t.Fatal(err)
	}
	// Terraform applies resources concurrently, the first ones before the
	// server has read its schema.
	const applies = 4
	resps := make([]*tfprotov6.ApplyResourceChangeResponse, applies)
	errs := make([]error, applies)
	var wg sync.WaitGroup
	for i := range applies {
		wg.Go(func() {
			resps[i], errs[i] = s.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{TypeName: name, PlannedState: &planned})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	resp := resps[0]
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
