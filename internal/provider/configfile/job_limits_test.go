package configfile_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/acctest"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// TestAccConfigFile_jobLimits: what JOB refuses or fails, through ESB and
// the bk-job gateway. A verify on more hosts than JOB runs a script on (its
// 1244022 names the limit, here 2) reads every host in several jobs and
// finds the one edited by hand; JOB's 1240002 on the job's status is sent
// again; its IAM refusal (9900403) names the actions and resources the user
// lacks.
func TestAccConfigFile_jobLimits(t *testing.T) {
	inFileModes(t, func(t *testing.T, e *acctest.Env) {
		e.Sim.JOBv3().SetScriptTargetsMax(2)
		file := func(content string) string {
			return providerBlock(e) + fmt.Sprintf(`
resource "gse_config_file" "c" {
  bk_scope_type = "biz"
  bk_scope_id   = "2"
  bk_host_ids   = [1, 2, 3, 4, 5]
  path          = "/data/conf"
  file_name     = "a.conf"
  account       = "root"
  content       = %q
  verify        = true
}
`, content)
		}
		var scripts int
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: e.Factories(),
			Steps: []resource.TestStep{
				{
					PreConfig: func() {
						e.Sim.AddFault(simulator.Fault{API: "jobv3/get_job_instance_status", Code: 1240002})
					},
					Config: file("a = 1\n"),
					Check: func(*terraform.State) error {
						if n := e.Sim.FaultsLeft(); n != 0 {
							return fmt.Errorf("%d faults never fired", n)
						}
						return nil
					},
				},
				{
					PreConfig: func() {
						e.Sim.JOBv3().SetFile(4, "/data/conf/a.conf", []byte("edited by hand\n"))
						scripts = e.Sim.Calls("jobv3/fast_execute_script")
					},
					Config: file("a = 1\n"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("gse_config_file.c", plancheck.ResourceActionUpdate),
					}},
					Check: func(*terraform.State) error {
						if b, _ := e.Sim.JOBv3().File(4, "/data/conf/a.conf"); string(b) != "a = 1\n" {
							return fmt.Errorf("host 4 holds %q", b)
						}
						if n := e.Sim.Calls("jobv3/fast_execute_script") - scripts; n < 4 || n%4 != 0 {
							return fmt.Errorf("%d fast_execute_script calls: want 4 a verify (refused for 5 hosts, then 2 + 2 + 1)", n)
						}
						return nil
					},
				},
				{
					PreConfig: func() {
						e.Sim.AddFault(simulator.Fault{API: "jobv3/push_config_file", Code: gse.CodeIAMNoPermission})
					},
					Config: file("a = 2\n"),
					ExpectError: acctest.Wrapped("push_config_file: code 9900403", "the user lacks the IAM permission of bk_job (Job) to use_account (Use Account) on Accounts root;",
						"quick_transfer_file (File Transfer (Quick Launch)) on Hosts 1, 2, 3, 4, 5: apply for the permission in BlueKing IAM"),
				},
			},
		})
	})
}
