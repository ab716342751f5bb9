package managedprocess_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

func named(name string) queryfilter.QueryFilter {
	return queryfilter.ByResourceIdentity(map[string]knownvalue.Check{"namespace": knownvalue.StringExact("gse"), "name": knownvalue.StringExact(name)})
}

func identityOf(name string) map[string]knownvalue.Check {
	return map[string]knownvalue.Check{"namespace": knownvalue.StringExact("gse"), "name": knownvalue.StringExact(name)}
}

// terraform query finds the processes registered outside Terraform, filtered
// by namespace, name prefix and labels, with their identity, display name
// and (include_resource) the resource as import would read it.
func TestAccManagedProcessList_query(t *testing.T) {
	t.Parallel()
	acctest.InModes(t, func(t *testing.T, e *acctest.Env) {
		resource.Test(t, resource.TestCase{
			TerraformVersionChecks:   acctest.TF114Versions,
			ProtoV6ProviderFactories: e.Factories(),
			CheckDestroy:             e.CheckOnlyLeft("gse/web-a", "gse/web-b", "gse/db", "other/web-c"),
			Steps: []resource.TestStep{
				{
					PreConfig: func() {
						e.Register(t, gse.Meta{Namespace: "gse", Name: "web-a", Labels: map[string]string{"team": "web", "tier": "front"}}, []string{"0:10.0.0.2", "0:10.0.0.1"}, acctest.OpPtr(gse.OpStart))
						e.Register(t, gse.Meta{Namespace: "gse", Name: "web-b", Labels: map[string]string{"team": "web"}}, []string{"0:10.0.0.3"}, nil)
						e.Register(t, gse.Meta{Namespace: "gse", Name: "db", Labels: map[string]string{"team": "db"}}, []string{"1:10.0.0.4"}, acctest.OpPtr(gse.OpHost))
						e.Register(t, gse.Meta{Namespace: "other", Name: "web-c"}, []string{"0:10.0.0.5"}, nil)
					},
					Config: e.ProviderBlock(),
				},
				{
					Query: true,
					Config: `
list "gse_managed_process" "all" {
  provider = gse
  config {
    namespace = "gse"
  }
}

list "gse_managed_process" "web" {
  provider         = gse
  include_resource = true
  config {
    namespace   = "gse"
    name_prefix = "web-"
    labels      = { team = "web" }
  }
}

list "gse_managed_process" "front" {
  provider = gse
  config {
    namespace = "gse"
    labels    = { team = "web", tier = "front" }
  }
}

list "gse_managed_process" "first" {
  provider = gse
  limit    = 1
  config {
    namespace = "gse"
  }
}

list "gse_managed_process" "none" {
  provider = gse
  config {
    namespace = "empty"
  }
}
`,
					QueryResultChecks: []querycheck.QueryResultCheck{
						querycheck.ExpectLength("gse_managed_process.all", 3),
						querycheck.ExpectIdentity("gse_managed_process.all", identityOf("web-a")),
						querycheck.ExpectIdentity("gse_managed_process.all", identityOf("web-b")),
						querycheck.ExpectIdentity("gse_managed_process.all", identityOf("db")),
						querycheck.ExpectResourceDisplayName("gse_managed_process.all", named("web-a"), knownvalue.StringExact("gse/web-a on 2 hosts")),
						querycheck.ExpectResourceDisplayName("gse_managed_process.all", named("db"), knownvalue.StringExact("gse/db on 1 host")),

						querycheck.ExpectLength("gse_managed_process.web", 2),
						querycheck.ExpectResourceKnownValues("gse_managed_process.web", named("web-a"), []querycheck.KnownValueCheck{
							{Path: tfjsonpath.New("id"), KnownValue: knownvalue.StringExact("gse/web-a")},
							{Path: tfjsonpath.New("meta"), KnownValue: knownvalue.ObjectExact(map[string]knownvalue.Check{
								"namespace": knownvalue.StringExact("gse"), "name": knownvalue.StringExact("web-a"),
								"labels": knownvalue.MapExact(map[string]knownvalue.Check{"team": knownvalue.StringExact("web"), "tier": knownvalue.StringExact("front")}),
							})},
							{Path: tfjsonpath.New("hosts"), KnownValue: knownvalue.ListExact([]knownvalue.Check{acctest.Host(0, "10.0.0.1"), acctest.Host(0, "10.0.0.2")})},
							{Path: tfjsonpath.New("managed"), KnownValue: knownvalue.Bool(true)},
							{Path: tfjsonpath.New("running"), KnownValue: knownvalue.Bool(true)},
							{Path: tfjsonpath.New("spec"), KnownValue: knownvalue.Null()},
							{Path: tfjsonpath.New("host_status").AtMapKey("0:10.0.0.1").AtMapKey("status"), KnownValue: knownvalue.StringExact("running")},
						}),
						querycheck.ExpectResourceKnownValues("gse_managed_process.web", named("web-b"), []querycheck.KnownValueCheck{
							{Path: tfjsonpath.New("hosts"), KnownValue: knownvalue.ListExact([]knownvalue.Check{acctest.Host(0, "10.0.0.3")})},
							{Path: tfjsonpath.New("managed"), KnownValue: knownvalue.Bool(false)},
							{Path: tfjsonpath.New("running"), KnownValue: knownvalue.Null()},
							{Path: tfjsonpath.New("spec"), KnownValue: knownvalue.Null()},
						}),

						querycheck.ExpectLength("gse_managed_process.front", 1),
						querycheck.ExpectIdentity("gse_managed_process.front", identityOf("web-a")),
						querycheck.ExpectLength("gse_managed_process.first", 1),
						querycheck.ExpectLength("gse_managed_process.none", 0),
					},
				},
			},
		})
		if e.Sim.Calls("sync_proc_status") == 0 || e.Sim.Calls("get_proc_status_v2") == 0 {
			t.Fatalf("the query did not list and confirm: %v", e.Sim.AllCalls())
		}
	})
}
