package packed

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	"github.com/hashicorp/terraform-plugin-log/tfsdklog"
	"github.com/hashicorp/terraform-plugin-log/tfsdklogtest"
)

// Quiet hands the framework a context without the loggers, and with all else:
// the deadline, cancellation and other values reach the resource; neither
// the framework nor the resource writes a line. Without Quiet, both do.
func TestQuietDropsOnlyTheLoggers(t *testing.T) {
	t.Parallel()
	for _, quiet := range []bool{false, true} {
		var sdk, prov bytes.Buffer
		ctx := tfsdklogtest.RootLogger(context.Background(), &sdk)
		ctx = tfsdklog.NewSubsystem(ctx, "framework")
		ctx = tflogtest.RootLogger(ctx, &prov)
		ctx = context.WithValue(ctx, testKey{}, "kept")
		ctx, cancel := context.WithTimeout(ctx, time.Hour)
		s := newTestServer(t)
		if quiet {
			Quiet()(&s)
		}
		resp, err := s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "test_thing", CurrentState: thingState(t, s)})
		if err != nil || len(resp.Diagnostics) != 1 {
			t.Fatalf("quiet %v: %v %v", quiet, err, resp)
		}
		if got, want := resp.Diagnostics[0].Detail, "deadline true, value kept, err <nil>"; got != want {
			t.Errorf("quiet %v: the resource's context: %s, want %s", quiet, got, want)
		}
		if logged := sdk.Len() > 0 && prov.Len() > 0; logged == quiet {
			t.Errorf("quiet %v: the framework logged %d bytes, the resource %d", quiet, sdk.Len(), prov.Len())
		}
		cancel()
		resp, err = s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "test_thing", CurrentState: thingState(t, s)})
		if err != nil || len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Detail != "deadline true, value kept, err context deadline exceeded" &&
			resp.Diagnostics[0].Detail != "deadline true, value kept, err context canceled" {
			t.Errorf("quiet %v: after cancel: %v %v", quiet, err, resp)
		}
	}
}

// thingState is a stored test_thing: a name, all else null.
func thingState(t *testing.T, s server) *tfprotov6.DynamicValue {
	t.Helper()
	typ, attrs := nullThing(t, s)
	attrs["name"] = tftypes.NewValue(tftypes.String, "t")
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}
