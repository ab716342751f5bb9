package launch

import (
	"os"
	"strings"
)

// logLevelVars are the terraform-plugin-log levels of the SDK loggers
// (terraform-plugin-go, its protocol logger, terraform-plugin-framework) and
// of the provider's own logger.
var logLevelVars = []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"}

// quietUnlessAsked turns the loggers off when the user asked for no logs (none
// of TF_LOG, TF_LOG_PROVIDER*, TF_LOG_SDK*, TF_LOG_PATH* is set). Terraform then
// discards every plugin log line, but the SDK would still format them: a
// trace line per attribute and element, most of the provider's CPU on a plan
// of thousands of hosts. With any of those set, nothing changes. It says
// whether it turned them off.
func quietUnlessAsked() bool {
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "TF_LOG" || strings.HasPrefix(name, "TF_LOG_PROVIDER") || strings.HasPrefix(name, "TF_LOG_SDK") || strings.HasPrefix(name, "TF_LOG_PATH") {
			return false
		}
	}
	for _, name := range logLevelVars {
		_ = os.Setenv(name, "off")
	}
	return true
}
