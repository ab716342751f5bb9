package provider_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// examples/cmdb-services starts in CMDB's and GSEKit's order, ascending
// priority (bk-cmdb src/scene_server/admin_server/upgrader/y3.9.202011171550/change_process_attr.go,
// the priority field's hint; bk-process-config-manager
// apps/gsekit/adapters/base/pipeline_managers/process.py get_op_type_order):
// in the simulator's business agent (priority 0) is in the first tier and
// nginx (priority 10) in the one that depends on it.
func TestAccExampleCMDBServicesStartsInAscendingPriority(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnvWith(t, acctest.Modes[0], func(o *simulator.Options) { o.CMDBHosts = 4 })
	b, err := os.ReadFile("../../examples/cmdb-services/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	cli := acctest.NewCLIRunFrom(t, e, "1.5.0", "")
	cli.WriteFile("main.tf", acctest.Edited(t, string(b), `provider "gse" {}`, "provider \"gse\" {\n"+e.ProviderArgs()+"}"))
	cli.Must("plan", "-out=tfplan", "-no-color", "-input=false")
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Name    string `json:"name"`
		} `json:"resource_changes"`
	}
	out := cli.Must("show", "-json", "tfplan")
	// The output is combined: the CLI's warnings on stderr come before the document.
	if err := json.Unmarshal([]byte(out[max(0, strings.Index(out, `{"format_version"`)):]), &plan); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	tiers := map[string][]string{}
	for _, rc := range plan.ResourceChanges {
		if strings.HasPrefix(rc.Address, "gse_managed_process.") {
			key := rc.Address[strings.Index(rc.Address, "[")+1:]
			tiers[rc.Name] = append(tiers[rc.Name], strings.Trim(key, `"]`))
		}
	}
	has := func(tier, name string) bool {
		return slices.ContainsFunc(tiers[tier], func(k string) bool { return strings.HasPrefix(k, "GSEKIT_BIZ_2/"+name+"_") })
	}
	if !has("first", "agent") || has("first", "nginx") || !has("rest", "nginx") || has("rest", "agent") {
		t.Errorf("tiers %v: want agent (priority 0) first and nginx (priority 10) after it", tiers)
	}
}
