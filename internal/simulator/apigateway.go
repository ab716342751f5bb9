package simulator

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The BlueKing API gateway's front door, as every gateway route of the
// simulator (GSE 2.0, bk-cmdb's and bk-job's gateways) answers: its plugins
// in front of the backend (route, request ids, credentials, tenant, the
// app's rate), the call counts and injected faults, and the backend's reply
// passed as it is.

// SetGatewayStatusRewrite makes the gateway answer its errors with HTTP 200
// (the code stays in the body and X-Bkapi-Error-Code), as some stages do.
func (s *Server) SetGatewayStatusRewrite(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rewrite = on
}

// handleGateway is what every gateway API shares, in the order of the
// gateway's plugins: the route (bk-not-found-handler), the request ids
// (bk-request-id), the credentials (bk-auth-verify, bk-auth-validate), the
// tenant (bk-tenant-validate), the app's rate on the stage
// (bk-stage-rate-limit); then the backend, whose reply passes as it is.
// dispatch answers the body.
func (s *Server) handleGateway(r *http.Request, api string, raw []byte, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	return s.handleGatewayFor(r, api, raw, false, dispatch)
}

// handleGatewayFor is handleGateway for a resource that needs a verified
// user (userVerifiedRequired) when verified is true.
func (s *Server) handleGatewayFor(r *http.Request, api string, raw []byte, verified bool, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[api]++
	if s.lacks(api) {
		// The operator's root route: no request-id plugin, no status rewrite.
		return gatewayError(codeGatewayNotFound, [2]string{"method", r.Method}, [2]string{"path", r.URL.Path})
	}
	var rep reply
	var quota http.Header
	if limit := cmp.Or(s.opts.GatewayBodyLimit, 32<<20); len(raw) > limit {
		rep = gatewayError(1641301, [2]string{"reason", fmt.Sprintf("request body size %d exceeds the limit %d", len(raw), limit)})
	} else if refused := s.gatewayFront(r, raw, verified); refused != nil {
		rep = *refused
	} else if over, header := s.overQuota(r, raw); over {
		rep, quota = gatewayError(codeGatewayStageLimit), header
	} else if f := s.takeFault(api); f != nil && !f.acts() {
		rep, quota = f.reply(api, raw, reply{}, true), header
	} else {
		rep, quota = s.answerGateway(api, raw, dispatch), header
		if f != nil {
			rep = f.reply(api, raw, rep, true)
		}
	}
	if rep.shape == shapeGateway && s.rewrite && rep.code != codeGatewayBadGateway && rep.code != codeGatewayTimeout {
		rep.status = http.StatusOK // upstream errors keep theirs: nginx sets it after the plugins ran
	}
	if rep.header == nil {
		rep.header = http.Header{}
	}
	for k, v := range quota {
		rep.header[k] = v
	}
	// bk-request-id.lua: a fresh X-Bkapi-Request-ID replaces the client's;
	// X-Request-ID is the client's, or the same id without dashes.
	id := newUUID()
	rep.header.Set("X-Bkapi-Request-Id", id)
	rep.header.Set("X-Request-Id", cmp.Or(r.Header.Get("X-Request-Id"), strings.ReplaceAll(id, "-", "")))
	return rep
}

// gatewayFront is the refusal of the gateway's plugins in front of the
// backend, or nil: the credentials, then the tenant.
func (s *Server) gatewayFront(r *http.Request, raw []byte, verified bool) *reply {
	if err := s.authenticateGateway(r.Header.Get("X-Bkapi-Authorization"), verified); err != nil {
		return err
	}
	if t := s.opts.TenantID; t != "" && r.Header.Get("X-Bk-Tenant-Id") != t {
		reason := "Cross-tenant calls are not allowed: header X-Bk-Tenant-Id is required and should not be empty. the app " + appOf(r, raw) + " tenant_mode=global. [AH1]"
		if h := r.Header.Get("X-Bk-Tenant-Id"); h != "" {
			reason = "Cross-tenant calls are not allowed: gateway belongs to tenant " + t + ", header tenant_id is " + h + ". [GH]"
		}
		rep := gatewayError(codeGatewayForbidden, [2]string{"reason", reason})
		return &rep
	}
	return nil
}

// answerGateway is the backend's reply: GSE 2.0 takes credentials only from
// the header, and its envelope has no result.
func (s *Server) answerGateway(api string, raw []byte, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	fail := func(e *apiError) reply {
		return reply{status: http.StatusOK, code: e.code, msg: e.msg, shape: shapeBackend}
	}
	var creds auth
	if err := json.Unmarshal(raw, &creds); err != nil {
		return fail(&apiError{codeGatewayParams, "the body does not match " + api + ": " + err.Error()})
	}
	if creds != (auth{}) {
		return fail(&apiError{codeGatewayParams, "credentials belong in X-Bkapi-Authorization, not in the body"})
	}
	data, err := dispatch(api, raw)
	if err != nil {
		return fail(err)
	}
	return reply{status: http.StatusOK, msg: "success", data: data, shape: shapeBackend}
}

// authenticateGateway is bk-auth-verify and bk-auth-validate: the app,
// then the user; every refusal 400 1640001 with its reason. bk_username is
// never a verified user: on a resource that needs one (verified, such as
// bk-job's user APIs) it is refused; elsewhere it passes for apps the
// gateway exempts (every app here, unless Options.VerifiedUsersOnly).
func (s *Server) authenticateGateway(header string, verified bool) *reply {
	fail := func(reason string) *reply { rep := gatewayInvalidArgs(reason); return &rep }
	var creds auth
	if header != "" && json.Unmarshal([]byte(header), &creds) != nil {
		return fail("request header X-Bkapi-Authorization is not a valid JSON")
	}
	switch {
	case creds.AccessToken != "":
		if s.opts.AccessToken != "" && creds.AccessToken != s.opts.AccessToken {
			// bkauth's answer for a token it does not know is not in the
			// gateway's code; the expired one is.
			return fail("access_token has expired")
		}
		return nil
	case creds.AppCode == "":
		return fail("app code cannot be empty")
	case s.opts.AppCode != "" && creds.AppCode != s.opts.AppCode:
		return fail("app not found")
	case creds.AppSecret == "":
		return fail("please provide bk_app_secret or bk_signature to verify app")
	case s.opts.AppSecret != "" && creds.AppSecret != s.opts.AppSecret:
		return fail("bk_app_code or bk_app_secret is incorrect")
	case creds.BkToken != "":
		return nil
	case creds.Username == "":
		return fail("user authentication failed, please provide a valid user identity, such as bk_username, bk_token, access_token")
	case s.opts.VerifiedUsersOnly || verified:
		return fail("user authentication failed, the user indicated by bk_username is not verified")
	}
	return nil
}
