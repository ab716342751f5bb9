package cmdb_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// TestAccCMDBProcesses_resourceBlock: GSEKit sends no spec.resource for a
// CMDB process, and neither does the provider for a group: none to the
// gateway, none to ESB's operate APIs, and zeros only to ESB's
// register_proc_info and update_proc_info, which require the block.
func TestAccCMDBProcesses_resourceBlock(t *testing.T) {
	inCMDBModes(t, 4, func(t *testing.T, e *acctest.Env) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{
				{
					Config:            processesConfig(e, `process_names = ["nginx"]`),
					ConfigStateChecks: []statecheck.StateCheck{acctest.SimState(func() error { return resourcesSent(e) })},
				},
				// The test framework cannot destroy for_each instances itself.
				{Config: e.CMDBConfig(""), ConfigStateChecks: []statecheck.StateCheck{acctest.SimState(func() error { return e.CheckSimEmpty(nil) })}},
			},
		})
	})
}

// resourcesSent checks the spec.resource of every spec sent:
// {"cpu":0,"mem":0} to ESB's register_proc_info and update_proc_info, none
// anywhere else.
func resourcesSent(e *acctest.Env) error {
	sent := e.SpecFieldSent("resource")
	if len(sent) == 0 {
		return fmt.Errorf("no spec was sent: the test proves nothing")
	}
	for api, list := range sent {
		want := "none"
		if !e.Gateway && (api == "register_proc_info" || api == "update_proc_info") {
			want = `{"cpu":0,"mem":0}`
		}
		for _, got := range list {
			if got != want {
				return fmt.Errorf("%s: spec.resource %s, want %s", api, got, want)
			}
		}
	}
	return nil
}
