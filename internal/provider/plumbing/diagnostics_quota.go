package plumbing

import (
	"fmt"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// quotaAdvice advises on a call the installation throttled until the
// deadline, or one it does not have.
func quotaAdvice(err error) string {
	if api, ok := gse.MissingAPI(err); ok {
		return fmt.Sprintf("This installation has no %s (ESB answered \"component not found\", or the gateway HTTP 404): check endpoint and gateway_url, and the GSE version.", api)
	}
	if gse.KindOf(err) == gse.KindRateLimited {
		return "The installation refused this app's requests for its rate limit until the timeout passed. Run fewer Terraform runs with this app at once, " +
			"set rate_limit (or " + RateLimitEnv + ") in the provider block below the app's quota divided by the runs started at once, " +
			"or raise the timeout in the resource's timeouts block."
	}
	return ""
}

// RateLimitEnv is rate_limit's environment fallback.
const RateLimitEnv = "GSE_RATE_LIMIT"
