package processoperation

import (
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// With cmd_shell_ext (operate_proc) both limits are sent, 0 when unset;
// without it nothing is added.
func TestOperateProcExplicitLimits(t *testing.T) {
	t.Parallel()
	m := operationJOBProcessModel{CmdShellExt: types.StringValue("sh")}
	p := m.expand()
	if p.CPULmt == nil || *p.CPULmt != 0 || p.MemLmt == nil || *p.MemLmt != 0 {
		t.Errorf("operate_proc limits %v %v, want explicit 0", p.CPULmt, p.MemLmt)
	}
	raw, _ := json.Marshal(p)
	var sent map[string]any
	_ = json.Unmarshal(raw, &sent)
	if sent["cpu_lmt"] != float64(0) || sent["mem_lmt"] != float64(0) {
		t.Errorf("body %s lacks cpu_lmt / mem_lmt 0", raw)
	}
	if p := (operationJOBProcessModel{}).expand(); p.CPULmt != nil || p.MemLmt != nil {
		t.Errorf("operate_process got limits %v %v", p.CPULmt, p.MemLmt)
	}
}
