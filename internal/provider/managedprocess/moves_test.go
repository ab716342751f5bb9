package managedprocess_test

import (
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
)

// A host leaving and another joining: Terraform renders the list position by
// position (`~ ip = "10.0.0.3" -> "10.0.0.150"`), so the plan also says, in a
// warning, which hosts leave and which join; an unchanged plan says nothing.
func TestAccManagedProcess_hostsLeaveAndJoin(t *testing.T) {
	t.Parallel()
	e := acctest.NewEnv(t)
	cfg := func(hosts ...string) string {
		return strings.TrimPrefix(e.Config(acctest.Proc{Hosts: hosts, Extra: "running = true"}), e.ProviderBlock())
	}
	cli := acctest.NewCLIRunFrom(t, e, "1.0.0", cfg("0:10.0.0.1", "0:10.0.0.2", "0:10.0.0.3"))
	if out, err := cli.Run("apply", "-auto-approve", "-no-color", "-input=false"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	out, err := cli.Run("plan", "-no-color", "-input=false")
	if err != nil || strings.Contains(out, "joining") {
		t.Fatalf("unchanged plan: %v\n%s", err, out)
	}
	if err := acctest.WriteMain(cli, cfg("0:10.0.0.1", "0:10.0.0.2", "0:10.0.0.150")); err != nil {
		t.Fatal(err)
	}
	out, err = cli.Run("plan", "-no-color", "-input=false")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	if !wordsRegexp("Warning: 1 host leaving, 1 joining", "Leaving (the process is removed there): 0:10.0.0.3.",
		"Joining (the process is registered there): 0:10.0.0.150.", "no host changes address").MatchString(out) {
		t.Errorf("plan does not name the host leaving and the host joining:\n%s", out)
	}
	if out, err := cli.Run("destroy", "-auto-approve", "-no-color", "-input=false"); err != nil {
		t.Fatalf("destroy: %v\n%s", err, out)
	}
}
