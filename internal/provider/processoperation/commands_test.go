package processoperation_test

import (
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// An operation whose command is empty or unset fails at plan, naming the
// process and the command, not on each host at apply; a status read needs
// none.
func TestAccProcessOperation_needsItsCommand(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	for _, tc := range []struct{ op, from, to, summary, detail string }{
		{"reload", `reload_cmd = "./reload.sh"`, `reload_cmd = ""`, `op = "reload" needs gse.spec.control.reload_cmd`,
			`reload runs gse.spec.control.reload_cmd of process gse/proc-test on every host, and it is empty`},
		{"kill", `kill_cmd = "./kill.sh", `, ``, `op = "kill" needs gse.spec.control.kill_cmd`, `of process gse/proc-test`},
	} {
		cfg := acctest.Edited(t, gseOperation(e, tc.op, "1"), tc.from, tc.to)
		e.ExpectPlanErrors(t, []acctest.PlanError{{Config: cfg, Want: "(?s)" + acctest.WrappedText(tc.summary) + ".*" + acctest.WrappedText(tc.detail)}})
	}
}
