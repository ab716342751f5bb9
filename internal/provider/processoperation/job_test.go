package processoperation_test

import (
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// The ip_list of a JOB operation (a set) gets the same checks as the resource's.
func TestAccProcessOperation_jobIPValidation(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	base := jobOperation(e, "start", "1", "")
	var cases []acctest.PlanError
	for _, tc := range []struct{ to, want string }{
		{`{ bk_cloud_id = 0, ip = "10.0.0.1" }, { bk_cloud_id = 0, ip = "::ffff:10.0.0.1" }`, `the same\s+host`},
		{`{ bk_cloud_id = 0, ip = "fe80::1%eth0" }`, `has a zone`},
		{`{ bk_cloud_id = 0, ip = "10.0.0" }`, `is not an IPv4 or IPv6\s+address`},
	} {
		cases = append(cases, acctest.PlanError{Config: acctest.Edited(t, base, `{ bk_cloud_id = 0, ip = "10.0.0.1" }, { bk_cloud_id = 0, ip = "10.0.0.2" }`, tc.to), Want: tc.want})
	}
	e.ExpectPlanErrors(t, cases)
}
