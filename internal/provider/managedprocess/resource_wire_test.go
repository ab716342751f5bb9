package managedprocess_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// TestAccManagedProcess_resourceBlock: what each path sends as
// spec.resource. ESB's register_proc_info requires the block, so it gets
// the limits, zeros when there are none; ESB's operate APIs define none and
// get none. The gateway gets the block only with a limit, even one alone
// (fd), and none without, as GSEKit and bk-bscp send it none.
func TestAccManagedProcess_resourceBlock(t *testing.T) {
	t.Parallel()
	const zeros, fd = `{"cpu":0,"mem":0}`, `{"cpu":0,"fd":1000,"mem":0}`
	for _, m := range acctest.Modes {
		for _, tc := range []struct{ name, limits, esb, gateway string }{
			{"no limits", "{ cpu = 0, mem = 0 }", zeros, "none"},
			{"fd alone", "{ cpu = 0, mem = 0, fd = 1000 }", fd, fd},
		} {
			t.Run(m.Name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				e := acctest.NewEnvWith(t, m, func(o *simulator.Options) { o.RecordRequests = true })
				cfg := acctest.Edited(t, e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.1"}, Extra: "running = true"}),
					"resource       = { cpu = 10.0, mem = 10.0, fd = 10000, disk = 100, net = 0 }", "resource = "+tc.limits)
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: e.Factories(),
					CheckDestroy:             e.CheckSimEmpty,
					Steps: []resource.TestStep{{Config: cfg, ConfigStateChecks: []statecheck.StateCheck{acctest.SimState(func() error {
						sent := e.SpecFieldSent("resource")
						if len(sent) == 0 {
							return fmt.Errorf("no spec was sent: the test proves nothing")
						}
						for api, list := range sent {
							want := tc.gateway
							if !e.Gateway {
								want = map[bool]string{true: "none", false: tc.esb}[strings.HasPrefix(api, "operate_proc")]
							}
							for _, got := range list {
								if got != want {
									return fmt.Errorf("%s: spec.resource %s, want %s", api, got, want)
								}
							}
						}
						return nil
					})}}},
				})
			})
		}
	}
}
