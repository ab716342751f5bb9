package managedprocess

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Each operation the configuration runs needs its command, as GSEKit's
// OP_TYPE_PROCESS_ATTR_MAP requires it, and an empty one is as missing as
// an unset one; a process without stop_cmd is still started and hosted.
// The error names the process and the command.
func TestValidateConfigCommandsPerOperation(t *testing.T) {
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	boolean := func(b bool) tftypes.Value { return tftypes.NewValue(tftypes.Bool, b) }
	triggers := tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{"conf": str("v1")})
	for _, tc := range []struct {
		name string
		set  map[string]tftypes.Value
		want []string // the commands named by errors, in order
	}{
		{"started without stop_cmd", map[string]tftypes.Value{"running": boolean(true), "spec.control.start_cmd": str("./start.sh")}, nil},
		{"hosted without stop_cmd", map[string]tftypes.Value{"spec.control.start_cmd": str("./start.sh")}, nil},
		{"hosted without start_cmd", map[string]tftypes.Value{"spec.control.stop_cmd": str("./stop.sh")}, []string{"start_cmd"}},
		{"stopped with an empty stop_cmd", map[string]tftypes.Value{"running": boolean(false), "managed": boolean(false), "spec.control.stop_cmd": str("")}, []string{"stop_cmd"}},
		{"restart with an empty restart_cmd", map[string]tftypes.Value{
			"spec.control.start_cmd": str("./start.sh"), "spec.control.restart_cmd": str(""), "restart_triggers": triggers,
		}, []string{"restart_cmd"}},
		{"reload without reload_cmd", map[string]tftypes.Value{"spec.control.start_cmd": str("./start.sh"), "reload_triggers": triggers}, []string{"reload_cmd"}},
		{"restart and reload set", map[string]tftypes.Value{
			"spec.control.start_cmd": str("./start.sh"), "spec.control.restart_cmd": str("./restart.sh"), "restart_triggers": triggers,
			"spec.control.reload_cmd": str("./reload.sh"), "reload_triggers": triggers,
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := map[string]tftypes.Value{"meta.namespace": str("GSEKIT_BIZ_2"), "meta.name": str("nginx_1")}
			for k, v := range tc.set {
				set[k] = v
			}
			var resp resource.ValidateConfigResponse
			(&managedProcessResource{}).ValidateConfig(context.Background(), resource.ValidateConfigRequest{Config: configWith(t, set)}, &resp)
			var got []string
			for _, d := range resp.Diagnostics.Errors() {
				_, cmd, _ := strings.Cut(d.Summary(), "spec.control.")
				got = append(got, cmd)
				if !strings.Contains(d.Detail(), "process GSEKIT_BIZ_2/nginx_1") || !strings.Contains(d.Detail(), "spec.control."+cmd+" on every host, and it is empty") {
					t.Errorf("the error does not name the process and the command: %s: %s", d.Summary(), d.Detail())
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors name %q, want %q (%v)", got, tc.want, resp.Diagnostics)
			}
		})
	}
}
