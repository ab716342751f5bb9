package jobmanagedprocess

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

func upgradeJobManagedProcessV0(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	var state map[string]json.RawMessage
	if err := json.Unmarshal(req.RawState.JSON, &state); err != nil {
		resp.Diagnostics.AddError("Could not upgrade the state of gse_job_managed_process", "The version 0 state is not a JSON object: "+err.Error())
		return
	}
	state["contact"] = state["proc_owner"]
	delete(state, "proc_owner")
	if a, ok := state["account"]; !ok || string(a) == "null" {
		state["account"] = json.RawMessage(`"root"`)
	}
	raw, err := json.Marshal(state)
	if err != nil {
		resp.Diagnostics.AddError("Could not upgrade the state of gse_job_managed_process", err.Error())
		return
	}
	resp.DynamicValue = &tfprotov6.DynamicValue{JSON: raw}
}
