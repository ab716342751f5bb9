package simulator

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
)

// How each server in front of GSE, JOB and CMDB refuses a request, as its
// public code writes the reply. A reply's shape picks its body:
//   - ESB (TencentBlueKing/legacy-bk-paas paas2/esb): HTTP 200 and
//     {"result", "code", "message", "data", "request_id"}: common/errors.py
//     ErrorCode.as_dict, request_id added by esb/channel/base.py
//     handle_request; the refusals raised before it (routers.py 1306404,
//     1306406 of the Authorization header) have no request_id
//     (esb/middlewares.py APICommonMiddleware.process_exception).
//   - A backend through the gateway (GSE 2.0, bk-cmdb's scene servers
//     renamed by apiserver http.go parseResponse): its own envelope,
//     {"code", "message", "data"}, passed as it is.
//   - The gateway's own refusals (blueking-apigateway-apisix
//     src/apisix/plugins/bk-core/errorx.lua, written by
//     bk-error-wrapper.lua): the status of the error, the body {"code",
//     "code_name", "message", "result": false, "data": null} with no
//     request_id, and X-Bkapi-Error-Code and X-Bkapi-Error-Message headers.
//   - bk-cmdb's apiserver filters (bk-cmdb src/apiserver/service/filter.go,
//     src/common/metadata/result.go BaseResp): bk-cmdb's own keys,
//     {"result", "bk_error_code", "bk_error_msg", "permission"}, even
//     through the gateway.
//   - JOB's v3 APIs (bk-job esb-sdk EsbResp): {"code", "result",
//     "job_request_id", "message", "data"} and an IAM refusal's
//     "permission", through ESB and the bk-job gateway alike (job_limits.go).
type shape int

const (
	shapeESB shape = iota
	shapeBackend
	shapeGateway
	shapeCMDBFilter
	shapeJob
)

// gatewayCode is one of errorx.lua's errors: its HTTP status, code_name and message.
type gatewayCode struct {
	status        int
	name, message string
}

// gatewayCodes are the errors of errorx.lua the gateway raises (1640101,
// 1640102, 1640004, 1650000 and 1650201 are defined there and raised by
// no plugin).
var gatewayCodes = map[int]gatewayCode{
	1640001: {http.StatusBadRequest, "INVALID_ARGS", "Parameters error"},
	1640301: {http.StatusForbidden, "APP_NO_PERMISSION", "App has no permission to the resource"},
	1640302: {http.StatusForbidden, "CROSS_TENANT_FORBIDDEN", "Cross tenant forbidden"},
	1640303: {http.StatusForbidden, "BK_USER_NOT_ALLOWED", "Request rejected by bk-user restriction"},
	1640304: {http.StatusForbidden, "BK_TENANT_NOT_ALLOWED", "Request rejected by bk-tenant restriction"},
	1640401: {http.StatusNotFound, "API_NOT_FOUND", "API not found"},
	1641301: {http.StatusRequestEntityTooLarge, "BODY_SIZE_LIMIT_EXCEED", "Request body size too large."},
	1642901: {http.StatusTooManyRequests, "RATE_LIMIT_RESTRICTION", "API rate limit exceeded by stage global limit"},
	1642902: {http.StatusTooManyRequests, "RATE_LIMIT_RESTRICTION", "API rate limit exceeded by stage strategy"},
	1642903: {http.StatusTooManyRequests, "RATE_LIMIT_RESTRICTION", "API rate limit exceeded by resource strategy"},
	1642904: {http.StatusTooManyRequests, "CONCURRENCY_LIMIT_RESTRICTION", "Request concurrency exceeds"},
	1650001: {http.StatusInternalServerError, "INTERNAL_SERVER_ERROR", "Internal Server Error"},
	1650200: {http.StatusBadGateway, "BAD_GATEWAY", "Bad Gateway"},
	1650300: {http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "Service Unavailable"},
	1650401: {http.StatusGatewayTimeout, "REQUEST_BACKEND_TIMEOUT", "Request backend service timeout"},
}

// Codes the simulator's servers answer with.
const (
	codeGatewayParams      = 1640001
	codeGatewayForbidden   = 1640302 // CROSS_TENANT_FORBIDDEN, or IP_NOT_ALLOWED by another name
	codeGatewayNotFound    = 1640401
	codeGatewayStageLimit  = 1642902 // bk-stage-rate-limit: the app's limit on the stage
	codeGatewayBadGateway  = 1650200
	codeGatewayTimeout     = 1650401
	codeESBCommon          = 1306000
	codeESBBackendFailed   = 1306201
	codeComponentNotFound  = 1306404
	codeBadParams          = 1306406
	codeESBRateLimited     = 1306429
	codeCMDBRateLimited    = 1199997 // the apiserver's LimiterFilter (CCErrTooManyRequestErr)
	codeCMDBNoAuthItem     = 1199027 // AllGlobalFilter: no supplier account or user (CCErrCommNotAuthItem)
	esbThirdPartyTimeout   = "Third-party system interface response time exceeds 30 seconds"
	esbThirdPartyNotFound  = "Status Code: 404, Error Message: Third-party system does not find this interface"
	upstreamConnectRefused = "connection refused"
	upstreamReadTimeout    = "connection timed out while reading response header from upstream"
)

// gatewayError is the gateway's error code with fields rendered as errorx's
// with_field does: `message [key="value"]`, one group per call.
func gatewayError(code int, fields ...[2]string) reply {
	c := gatewayCodes[code]
	msg := c.message
	for _, f := range fields {
		msg += fmt.Sprintf(` [%s="%s"]`, f[0], f[1])
	}
	return reply{status: c.status, code: code, codeName: c.name, msg: msg, shape: shapeGateway}
}

// gatewayInvalidArgs is bk-auth-validate's refusal of credentials (and any
// other INVALID_ARGS): HTTP 400, 1640001, the reason as a field.
func gatewayInvalidArgs(reason string) reply {
	return gatewayError(codeGatewayParams, [2]string{"reason", reason})
}

// esbError is an ESB refusal with its message.
func esbError(code int, msg string) reply {
	return reply{status: http.StatusOK, code: code, msg: msg}
}

// esbThirdParty is ESB's 1306201 for a request to system's backend that
// failed with cause (esb/outgoing.py _request, wrapped by common/errors.py
// RequestThirdPartyException.get_message).
func esbThirdParty(system, api, cause string) reply {
	return esbError(codeESBBackendFailed, fmt.Sprintf("Component request third-party system [%s] interface [%s] error: %s, please try again later or contact component developer to handle this",
		system, api, cause))
}

// newUUID is a random version 4 UUID, as the gateway's request ids (resty.jit-uuid).
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// esbSystem is the system ESB names for an API counted as family/api.
func esbSystem(api string) (string, string) {
	family, name, ok := strings.Cut(api, "/")
	if !ok {
		return "GSE", api
	}
	return map[string]string{"job": "JOBV3", "cc": "CC"}[family], name
}

// cmdbFilterError is a reply of bk-cmdb's apiserver filters.
func cmdbFilterError(code int) reply {
	if code == codeCMDBNoAuthItem {
		// rdapi checkHTTPAuth: HTTP 500, metadata.Response (data included);
		// the message in English when X-Bkcmdb-Language is en.
		return reply{status: http.StatusInternalServerError, code: code, msg: "'user' authorization information query failed", shape: shapeCMDBFilter}
	}
	return reply{status: http.StatusOK, code: code, msg: "too many requests", shape: shapeCMDBFilter}
}

// refusal is the reply of a server refusing the request raw to api with
// code (from a Fault): its own shape for the codes each server has, GSE's
// or JOB's envelope for the others (through ESB or passed through the gateway).
func refusal(code int, api string, raw []byte, gateway bool) reply {
	if _, ok := gatewayCodes[code]; ok {
		rep := gatewayError(code)
		switch code {
		case codeGatewayBadGateway:
			rep = gatewayError(code, [2]string{"upstream_error", upstreamConnectRefused})
		case codeGatewayTimeout:
			rep = gatewayError(code, [2]string{"upstream_error", upstreamReadTimeout})
		}
		return rep
	}
	if _, ok := jobMessages[code]; ok && strings.HasPrefix(api, "jobv3/") {
		return jobRefusal(code, api, raw)
	}
	switch code {
	case codeCMDBRateLimited, codeCMDBNoAuthItem:
		return cmdbFilterError(code)
	case codeESBBackendFailed:
		system, name := esbSystem(api)
		return esbThirdParty(system, name, esbThirdPartyTimeout)
	}
	rep := esbError(code, "injected fault")
	if gateway {
		rep.shape = shapeBackend
	}
	return rep
}
