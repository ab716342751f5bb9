package managedprocess_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

func TestAccProcessStatusDataSource(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	ds := "data.gse_process_status.test"
	// The data source reads the resource's hosts plus one where the process is not registered.
	dataSource := `
data "gse_process_status" "test" {
  meta  = { namespace = gse_managed_process.test.meta.namespace, name = gse_managed_process.test.meta.name }
  hosts = concat([for h in gse_managed_process.test.hosts : { ip = h.ip, bk_cloud_id = h.bk_cloud_id }], %s)
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories(),
		CheckDestroy:             e.CheckSimEmpty,
		Steps: []resource.TestStep{
			{
				Config: e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.2", "1:10.0.0.1"}, Extra: "running = true"}) + acctest.Sprintf(dataSource, "[]"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("all_running"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("proc_infos"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"key": knownvalue.StringExact("0:10.0.0.2"), "ip": knownvalue.StringExact("10.0.0.2"), "bk_cloud_id": knownvalue.Int64Exact(0), "status": knownvalue.StringExact("running"),
							"expected_status": knownvalue.StringExact("running"), "managed": knownvalue.Bool(true), "version": knownvalue.StringExact("1.0.0"),
						}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"key": knownvalue.StringExact("1:10.0.0.1"), "ip": knownvalue.StringExact("10.0.0.1"), "bk_cloud_id": knownvalue.Int64Exact(1), "status": knownvalue.StringExact("running"),
						}),
					})),
				},
			},
			{
				Config: e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.2", "1:10.0.0.1"}, Extra: "running = true"}) +
					acctest.Sprintf(dataSource, `[{ ip = "10.0.0.7", bk_cloud_id = 0 }]`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("all_running"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("proc_infos").AtSliceIndex(1), knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"ip": knownvalue.StringExact("10.0.0.7"), "status": knownvalue.StringExact("unregistered"), "managed": knownvalue.Bool(false),
					})),
				},
				Check: e.SimPID(ds, "proc_infos.0.pid", 0, "10.0.0.2"),
			},
			{
				// A stop behind Terraform's back shows in the data source at once.
				PreConfig: func() { _ = e.Sim.GSE().Drift(simulator.DriftStop, "gse", "proc-test", 1, "10.0.0.1") },
				Config:    e.Config(acctest.Proc{Hosts: []string{"0:10.0.0.2", "1:10.0.0.1"}, Extra: "running = true"}) + acctest.Sprintf(dataSource, "[]"),
				// The refresh before this step's plan sees the drift; apply repairs it and the data source reads after.
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("all_running"), knownvalue.Bool(true)),
				},
			},
		},
	})
}

// Hosts are checked at plan time: cloud ids, zones, the same host in two spellings.
func TestAccProcessStatusDataSource_validation(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := func(hosts string) string {
		return e.ProviderBlock() + `data "gse_process_status" "test" {
  meta  = { namespace = "gse", name = "proc-test" }
  hosts = ` + hosts + `
}
`
	}
	e.ExpectPlanErrors(t, []acctest.PlanError{
		{Config: cfg(`[{ ip = "10.0.0.1", bk_cloud_id = -1 }]`), Want: `bk_cloud_id must be 0 or more`},
		{Config: cfg(`[{ ip = "fe80::1%eth0", bk_cloud_id = 0 }]`), Want: `ip must be an IPv4 or IPv6 address without a zone`},
		{Config: cfg(`[{ ip = "10.0.0.1", bk_cloud_id = 0 }, { ip = "::ffff:10.0.0.1", bk_cloud_id = 0 }]`), Want: `more than once`},
		{Config: cfg(`[]`), Want: `must list at least one host`},
	})
}
