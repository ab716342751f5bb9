package simulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"golang.org/x/time/rate"
)

// An installation limits each app, whoever calls for it: ESB answers 1306429
// in an HTTP 200 envelope (esb/ratelimit/validators.py), the gateway HTTP 429
// with 1642902, the app's limit on the stage (bk-stage-rate-limit), and no
// Retry-After; its X-Bkapi-RateLimit-* headers come with every request the
// limit counts (bk-rate-limit/init.lua, show_limit_quota_header defaults to
// true). The quota is one token bucket per app shared by every caller,
// refusals are counted in /_sim/calls under RateLimitedKey, and a request
// refused still counts as received under its API.
const (
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
// (routers.py: "Not found, component class not found"), the gateway 1640401
// API_NOT_FOUND (bk-not-found-handler.lua).
func (s *Server) RemoveAPIs(apis ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quota.missing = append(s.quota.missing, apis...)
}

// lacks reports whether the installation lacks api. Called with s.mu held.
func (s *Server) lacks(api string) bool { return slices.Contains(s.quota.missing, api) }

// overQuota takes a token of the app of r from its bucket: refused is true
// when there was none. header holds the gateway's X-Bkapi-RateLimit-*
// headers of the count (nil without a quota). Called with s.mu held.
func (s *Server) overQuota(r *http.Request, raw []byte) (refused bool, header http.Header) {
	if s.quota.rps <= 0 {
		return false, nil
	}
	app := appOf(r, raw)
	b := s.quota.buckets[app]
	if b == nil {
		b = rate.NewLimiter(rate.Limit(s.quota.rps), s.quota.burst)
		s.quota.buckets[app] = b
	}
	refused = !b.Allow()
	if refused {
		s.calls[RateLimitedKey]++
	}
	header = http.Header{}
	header.Set("X-Bkapi-RateLimit-Limit", strconv.Itoa(s.quota.burst))
	header.Set("X-Bkapi-RateLimit-Remaining", strconv.Itoa(max(0, int(b.Tokens()))))
	header.Set("X-Bkapi-RateLimit-Reset", "1") // seconds left in the window
	header.Set("X-Bkapi-RateLimit-Plugin", "bk-stage-rate-limit")
	return refused, header
}

// esbRateLimited is ESB's refusal for the app's quota on a component.
func (s *Server) esbRateLimited(r *http.Request, raw []byte) reply {
	return esbError(codeESBRateLimited, fmt.Sprintf("Access frequency limit, Access frequency of APP [%s] to component [%s] exceeds the limit; the frequency limit is [%g/1s], please try again later",
		appOf(r, raw), r.URL.Path, s.quota.rps))
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
