package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

func rateLimitAttribute() schema.Attribute {
	return schema.Float64Attribute{
		Optional: true,
		MarkdownDescription: "Requests per second this provider process sends for the app to the installation, over every API (GSE, JOB), " +
			"shared by every provider configuration of the process with the same endpoint, gateway and app. " +
			"Unset or `0`: adaptive, the rate slows down when ESB or the gateway answers that the app is rate limited (`1306429`, HTTP 429) and speeds up slowly after, " +
			"so several Terraform runs at once share the app's quota without being configured for it. " +
			"Set it below the app's quota divided by the runs you start at once to never be refused. Falls back to `" + plumbing.RateLimitEnv + "`.",
		Validators: []validator.Float64{plumbing.ZeroOrMore()},
	}
}

// rateLimit is rate_limit, or GSE_RATE_LIMIT when it is unset (0: adaptive).
func rateLimit(v types.Float64, diags *diag.Diagnostics) float64 {
	if !v.IsNull() {
		return v.ValueFloat64()
	}
	s := os.Getenv(plumbing.RateLimitEnv)
	if s == "" {
		return 0
	}
	r, err := strconv.ParseFloat(s, 64)
	if err != nil || r < 0 {
		diags.AddAttributeError(path.Root("rate_limit"), "Invalid GSE rate limit",
			fmt.Sprintf("%s=%q is not a number of requests per second at least 0: set it to, for example, 5, or to 0 (or unset it) for the adaptive rate.", plumbing.RateLimitEnv, s))
	}
	return r
}

// paceDirEnv names where the adaptive rate's cuts and the learned first
// polls are remembered between provider processes (gse.Config.PaceDir); set
// to an empty value, nowhere.
const paceDirEnv = "GSE_PACE_DIR"

// paceDir is GSE_PACE_DIR when set, else terraform-provider-gse/pace in the
// user's cache directory ("" when there is none: nothing is remembered).
func paceDir() string {
	if d, ok := os.LookupEnv(paceDirEnv); ok {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "terraform-provider-gse", "pace")
}
