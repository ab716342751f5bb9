package simulator

import (
	"encoding/json"
	"net/http"
	"slices"

	"golang.org/x/time/rate"
)

// An installation limits each app, whoever calls for it: ESB answers 1306429
// in an HTTP 200 envelope, the gateway HTTP 429 with 1642901 (and no
// Retry-After). The quota is one token bucket per app shared by every caller,
// refusals are counted in /_sim/calls under RateLimitedKey, and a request
// refused still counts as received under its API.
const (
	codeESBRateLimited     = 1306429
	codeGatewayRateLimited = 1642901
	codeComponentNotFound  = 1306404 // ESB: no such component (an API this installation lacks)

	// RateLimitedKey counts, in AllCalls and /_sim/calls, the requests refused for the quota.
	RateLimitedKey = "_sim/rate_limited"
)

// quota is the per-app token buckets and the APIs the installation lacks.
type quota struct {
	rps     float64
	burst   int
	buckets map[string]*rate.Limiter // by bk_app_code (or access token)
	missing []string                 // APIs answered as absent
}

// SetQuota limits every app to rps requests per second with bursts of burst
// (0: rps rounded up); rps 0 lifts the limit.
func (s *Server) SetQuota(rps float64, burst int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if burst <= 0 {
		burst = max(1, int(rps+0.999))
	}
	s.quota.rps, s.quota.burst, s.quota.buckets = rps, burst, map[string]*rate.Limiter{}
}

// RemoveAPIs makes the installation lack apis, as one without
// operate_proc_multi or sync_proc_status does: ESB answers 1306404
// "component not found", the gateway HTTP 404.
func (s *Server) RemoveAPIs(apis ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quota.missing = append(s.quota.missing, apis...)
}

// admit is the reply refusing a request before it reaches api (for the quota,
// or because the installation lacks api), or nil. Called with s.mu held.
func (s *Server) admit(r *http.Request, raw []byte, api string, gateway bool) *reply {
	if s.quota.rps > 0 {
		app := appOf(r, raw)
		b := s.quota.buckets[app]
		if b == nil {
			b = rate.NewLimiter(rate.Limit(s.quota.rps), s.quota.burst)
			s.quota.buckets[app] = b
		}
		if !b.Allow() {
			s.calls[RateLimitedKey]++
			if gateway {
				return &reply{status: http.StatusTooManyRequests, code: codeGatewayRateLimited, msg: "app rate limit exceeded"}
			}
			return &reply{status: http.StatusOK, code: codeESBRateLimited, msg: "Request rate exceeds the limit of the app"}
		}
	}
	if slices.Contains(s.quota.missing, api) {
		if gateway {
			return &reply{status: http.StatusNotFound, code: 0, msg: "API not found"}
		}
		return &reply{status: http.StatusOK, code: codeComponentNotFound, msg: "component not found: " + api}
	}
	return nil
}

// appOf names the app a request is made for: bk_app_code from the body or
// the X-Bkapi-Authorization header, else the access token, else "".
func appOf(r *http.Request, raw []byte) string {
	var body, header auth
	_ = json.Unmarshal(raw, &body)
	_ = json.Unmarshal([]byte(r.Header.Get("X-Bkapi-Authorization")), &header)
	for _, a := range []auth{body, header} {
		if a.AppCode != "" {
			return a.AppCode
		}
		if a.AccessToken != "" {
			return "token:" + a.AccessToken
		}
	}
	return ""
}
