package main

import (
	"fmt"
	"os"
	"strings"
)

// The config-file row: a 4 KiB file on 1,000 hosts, and the JOB jobs its
// apply and a verifying refresh cost (issue 33: one push job per apply, not
// per host; one script job per refresh).

const configFileHosts = 1000

// configFileFleet is the business that holds configFileHosts Linux hosts:
// the simulator makes every seventh host a Windows one.
const configFileFleet = 1200

func configFileConfig(content string) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    gse = { source = "bk-gse/gse" }
  }
}

provider "gse" {}

# The read is a shell script: Linux hosts only (bk_os_type 1).
data "gse_cmdb_hosts" "linux" {
  bk_biz_id = %[1]d
  filter = {
    condition = "AND"
    rules     = [{ field = "bk_os_type", operator = "equal", value = "1" }]
  }
}

resource "gse_config_file" "c" {
  bk_scope_type = "biz"
  bk_scope_id   = "%[1]d"
  bk_host_ids   = slice(data.gse_cmdb_hosts.linux.bk_host_ids, 0, %[2]d)
  path          = "/data/app/conf"
  file_name     = "app.conf"
  account       = "root"
  content       = %[3]q
  verify        = true
}
`, cmdbBizID, configFileHosts, content)
}

func (bn *bench) configFileRows() []row {
	fmt.Fprintf(os.Stderr, "config file: 4 KiB to %d hosts\n", configFileHosts)
	if bn.o.fleet[len(bn.o.fleet)-1] < configFileFleet {
		return []row{{work: "config file", value: "skipped", detail: fmt.Sprintf("the simulator's business has fewer than %d hosts (-fleet)", configFileFleet)}}
	}
	content := strings.Repeat("key = value\n", 4096/12)
	dir := bn.dir("configfile", configFileConfig(content))
	counts := bn.fast.callsOf
	push0, script0 := counts("jobv3/push_config_file"), counts("jobv3/fast_execute_script")
	apply := bn.apply(dir, bn.fast)
	push1, script1 := counts("jobv3/push_config_file"), counts("jobv3/fast_execute_script")
	plan := bn.plan(dir, bn.fast)
	push2, script2 := counts("jobv3/push_config_file"), counts("jobv3/fast_execute_script")
	bn.destroy(dir, bn.fast)
	return []row{{
		work:  fmt.Sprintf("`gse_config_file`, %d B to %d hosts, `verify = true`: JOB jobs of the apply / of a plan (refresh)", len(content), configFileHosts),
		value: fmt.Sprintf("%d push + %d script / %d push + %d script", push1-push0, script1-script0, push2-push1, script2-script1),
		detail: fmt.Sprintf("apply %.1f s, plan %.1f s; targets one push job per apply and one script job per refresh",
			apply.wall.Seconds(), plan.wall.Seconds()),
	}}
}
