package configfile_test

import (
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/configfile"
)

// An account alias JOB lacks (1244003) is told what to set, not to start an
// agent, nor pointed at a host_status that never reached the state.
func TestPushAdviceAccountMissing(t *testing.T) {
	err := &gse.APIError{API: "push_config_file", Code: 1244003, Message: "Account [nginx] does not exist"}
	got := configfile.PushAdvice(err, "nginx", false)
	if !strings.Contains(got, `no execution account with the alias "nginx" in biz 2`) || strings.Contains(got, "agent") || strings.Contains(got, "host_status") {
		t.Errorf("advice for 1244003: %s", got)
	}
	if got := configfile.PushAdvice(err, "nginx", true); strings.Contains(got, "agent") {
		t.Errorf("advice for 1244003 after a batch was sent: %s", got)
	}
}
