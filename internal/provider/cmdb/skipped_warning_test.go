package cmdb

import (
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/gsekit"
)

// The warning gives the advice of each kind of cause it lists, and only
// theirs: an instance skipped for an IPv6-only host through ESB is told to
// use gateway_url, not to render Mako.
func TestSkippedWarningAdvice(t *testing.T) {
	row := &gse.ProcessRow{}
	row.Process.Name, row.Process.ID, row.Host.ID = "nginx", 7, 25
	for _, tc := range []struct {
		name      string
		kinds     []gsekit.SkipKind
		gateway   bool
		want, not []string
	}{
		{"IPv6-only host through ESB", []gsekit.SkipKind{gsekit.SkipHost}, false, []string{"set the provider's gateway_url (GSE 2.0) to manage IPv6-only hosts"}, []string{"Mako", "CMDB (GSEKit"}},
		{"host without address through the gateway", []gsekit.SkipKind{gsekit.SkipHost}, true, []string{"Give these hosts an address in CMDB"}, []string{"gateway_url", "Mako"}},
		{"render", []gsekit.SkipKind{gsekit.SkipRender}, true, []string{"Render what GSEKit renders with Mako"}, []string{"address"}},
		{"field and duplicate", []gsekit.SkipKind{gsekit.SkipDuplicate, gsekit.SkipField}, true,
			[]string{"Correct the field in CMDB", "Give one of the processes another alias (bk_process_name)"}, []string{"Mako", "address"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var skipped []gsekit.Skipped
			for _, k := range tc.kinds {
				skipped = append(skipped, gsekit.Skipped{Row: row, N: 1, Kind: k, Reason: "a reason"})
			}
			w := skippedWarning(skipped, tc.gateway)
			for _, s := range tc.want {
				if !strings.Contains(w, s) {
					t.Errorf("the warning does not say %q:\n%s", s, w)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(w, s) {
					t.Errorf("the warning says %q:\n%s", s, w)
				}
			}
		})
	}
}
