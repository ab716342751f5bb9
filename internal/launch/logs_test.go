package launch

import (
	"os"
	"testing"
)

func TestQuietUnlessAsked(t *testing.T) {
	for _, tc := range []struct {
		set     string // a variable the user set, "" for none
		wantOff bool
	}{
		{"", true},
		{"TF_LOG", false},
		{"TF_LOG_PROVIDER_GSE", false},
		{"TF_LOG_SDK_FRAMEWORK", false},
		{"TF_LOG_PATH", false},
	} {
		t.Run(tc.set, func(t *testing.T) {
			for _, kv := range os.Environ() { // start from no logging variables at all
				for _, name := range append([]string{"TF_LOG", "TF_LOG_PATH", "TF_LOG_PROVIDER_GSE"}, logLevelVars...) {
					if len(kv) > len(name) && kv[:len(name)+1] == name+"=" {
						t.Setenv(name, "")
						os.Unsetenv(name)
					}
				}
			}
			for _, name := range logLevelVars {
				t.Setenv(name, "")
				os.Unsetenv(name)
			}
			if tc.set != "" {
				t.Setenv(tc.set, "trace")
			}
			if off := quietUnlessAsked(); off != tc.wantOff {
				t.Errorf("with %q set, quietUnlessAsked() = %v", tc.set, off)
			}
			for _, name := range logLevelVars {
				if name == tc.set {
					continue
				}
				if got := os.Getenv(name); (got == "off") != tc.wantOff {
					t.Errorf("with %q set, %s = %q, want off: %v", tc.set, name, got, tc.wantOff)
				}
			}
		})
	}
}
