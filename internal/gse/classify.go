package gse

import (
	"net/http"
	"regexp"
	"strings"
)

// What BlueKing's servers answer when they refuse a call, read in their
// public code, and what each answer means to the client: retried, paced, or
// reported with what to do. Three servers write these answers:
//   - ESB (legacy-bk-paas paas2/esb, common/errors.py): HTTP 200 and an
//     envelope whose code says which failure, with its reason in message;
//   - the API gateway (blueking-apigateway-apisix src/apisix/plugins,
//     bk-core/errorx.lua written by bk-error-wrapper.lua): its own HTTP
//     status (200 where a stage binds bk-status-rewrite), a body of code,
//     code_name, message, result and data, and X-Bkapi-Error-Code and
//     -Message headers;
//   - bk-cmdb's apiserver filters (src/apiserver/service/filter.go), whose
//     replies keep bk-cmdb's own keys, bk_error_code and bk_error_msg, even
//     through the gateway.
//
// Backends' own answers pass through both: GSE's, JOB's (HTTP 200, code and
// job_request_id), bk-cmdb's scene servers' (renamed to code and message
// through the gateway).
const (
	CodeTaskNotQueued = 1000115 // result polls: the task is not queued yet

	// ESB (paas2/esb common/errors.py).
	codeESBCommon = 1306000 // COMMON_ERROR: among others every credential refused, the reason as message (esb/channel/base.py validate_request)
	// CodeESBBackendFailed is REQUEST_THIRD_PARTY_ERROR: any failed request
	// to the backend (esb/outgoing.py _request): a status other than 200
	// ("Status Code: 404, Error Message: ..."), a read past its timeout, a
	// refused connection, a body that is not JSON.
	CodeESBBackendFailed  = 1306201
	CodeESBNoPermission   = 1306403 // the app may not call the component
	CodeComponentNotFound = 1306404 // no such component: an API this installation lacks
	codeESBParams         = 1306406
	CodeESBRateLimited    = 1306429

	// The API gateway (errorx.lua).
	CodeGatewayParams       = 1640001 // INVALID_ARGS: bad parameters, and every app or user credential refused (bk-auth-validate), the reason in the message
	codeGatewayUnauthorized = 1640100 // UNAUTHORIZED: an OAuth2 token refused
	codeGatewayNoPermission = 1640301 // APP_NO_PERMISSION: the app has no grant for the resource
	// codeGatewayForbidden is CROSS_TENANT_FORBIDDEN (bk-tenant-validate) or
	// IP_NOT_ALLOWED (bk-ip-restriction): one number, told apart by code_name.
	codeGatewayForbidden        = 1640302
	CodeGatewayUserRestricted   = 1640303 // BK_USER_NOT_ALLOWED
	codeGatewayTenantRestricted = 1640304 // BK_TENANT_NOT_ALLOWED
	CodeGatewayNotFound         = 1640401 // API_NOT_FOUND: no route for the method and path
	CodeGatewayBodyTooBig       = 1641301
	codeGatewayURITooLong       = 1641401
	codeGatewayStageLimit       = 1642901 // the stage's limit, every app together
	codeGatewayAppStageLimit    = 1642902 // the app's limit on the stage
	codeGatewayResourceLimit    = 1642903 // the app's limit on one resource (API)
	codeGatewayConcurrency      = 1642904
	codeGatewayServerMin        = 1650000 // 1650001 (auth service down), 1650200 (backend refused or reset), 1650300, 1650401 (backend timed out), ...
	codeGatewayServerMax        = 1650999
	codeGatewayLoop             = 1650801 // RECURSIVE_REQUEST_DETECTED: a configuration fault, not transient

	// bk-cmdb (src/common/errInfo.go).
	CodeCMDBNoAuthItem  = 1199027 // CCErrCommNotAuthItem: no user or supplier account (tenant) reached bk-cmdb; HTTP 500
	CodeCMDBParams      = 1199006 // CCErrCommParamsInvalid
	codeCMDBJSON        = 1199000 // CCErrCommJSONUnmarshalFailed
	codeCMDBRateLimited = 1199997 // CCErrTooManyRequestErr: the apiserver's LimiterFilter, HTTP 200

	// JOB (bk-job src/backend/commons/common/.../constant/ErrorCode.java),
	// HTTP 200 in JOB's envelope, through ESB and the bk-job gateway alike.
	codeJobUnavailable = 1240001 // SERVICE_UNAVAILABLE
	// codeJobInternal is INTERNAL_ERROR: any exception JOB's handlers did not
	// expect (common-web EsbExceptionControllerAdvice.handleException),
	// possibly after the job was saved (TaskExecuteServiceImpl
	// executeFastTaskInternal saves it before starting it).
	codeJobInternal = 1240002
	// CodeJobScriptTargets is SCRIPT_TASK_TARGET_SERVER_EXCEEDS_LIMIT: a
	// script job's targets exceed job.execute.limit.script-task.max-target-server
	// (50000 unless configured), checked before the job is saved.
	CodeJobScriptTargets = 1244022
	// CodeIAMNoPermission is BlueKing's IAM refusal (BK_PERMISSION_DENIED):
	// the user lacks permissions, which the reply's permission names (bk-job
	// esb-sdk EsbResp.buildAuthFailResult; bk-cmdb metadata.BaseResp).
	CodeIAMNoPermission = 9900403
)

// Kind is what a refusal means to the caller, so it can advise without
// parsing messages.
type Kind int

// The kinds of APIError.
const (
	KindOther Kind = iota
	// KindAuth: the credentials were refused (ESB 1306000 with a credential
	// reason, gateway 1640001 with one, 1640100), or no user reached bk-cmdb (1199027).
	KindAuth
	KindPermission  // the app has no grant: ESB 1306403, gateway 1640301
	KindTenant      // the tenant: gateway 1640302 CROSS_TENANT_FORBIDDEN, 1640304
	KindRestricted  // this machine's IP (1640302 IP_NOT_ALLOWED) or the user (1640303) is not allowed
	KindMissingAPI  // no such API here: ESB 1306404, its 404, a backend's 404 (1306201 "Status Code: 404"), gateway 1640401
	KindParams      // bad parameters (1306406, 1640001, 1199006, 1199000), or a request too large (1641301, 1641401: split it)
	KindRateLimited // HTTP 429, 1306429, 1642901-1642904, bk-cmdb's 1199997
	KindServer      // transient: HTTP 5xx, ESB 1306201, the gateway's 1650xxx, JOB's 1240001 and 1240002
	KindRemoved     // a JOB process API the installation no longer serves (see RemovedError)
)

// credentialReason matches the reasons ESB (esb/bkapp and esb/bkauth
// validators) and the gateway (bk-auth-verify) give for refused credentials:
// "bk_app_code or bk_app_secret is incorrect", "app not found", "APP Secret
// verification failed, ...", "user authentication failed, the user
// indicated by bk_username is not verified", "request header
// X-Bkapi-Authorization is not a valid JSON", "access_token has expired"...
var credentialReason = regexp.MustCompile(`(?i)app[ _](code|secret)|app not found|user authentication|user identity|bk_username|bk_token|access_token|x-bkapi-authorization|signature|bk_nonce|bk_timestamp`)

// classify says what a reply refusing a call means, from its HTTP status,
// code, code_name and message.
func classify(status, code int, codeName, msg string) Kind {
	switch {
	case code == CodeESBRateLimited, code >= codeGatewayStageLimit && code <= codeGatewayConcurrency, code == codeCMDBRateLimited,
		code == 0 && status == http.StatusTooManyRequests:
		return KindRateLimited
	case code == codeESBCommon && credentialReason.MatchString(msg), code == CodeGatewayParams && credentialReason.MatchString(msg),
		code == codeGatewayUnauthorized, code == CodeCMDBNoAuthItem:
		return KindAuth
	case code == CodeESBNoPermission, code == codeGatewayNoPermission:
		return KindPermission
	case code == codeGatewayForbidden && (codeName == "IP_NOT_ALLOWED" || strings.Contains(msg, "ip restriction")), code == CodeGatewayUserRestricted:
		return KindRestricted
	case code == codeGatewayForbidden, code == codeGatewayTenantRestricted:
		return KindTenant
	case code == CodeComponentNotFound, code == CodeGatewayNotFound, code == 0 && status == http.StatusNotFound,
		code == CodeESBBackendFailed && strings.Contains(msg, "Status Code: 404"):
		return KindMissingAPI
	case code == codeESBParams, code == CodeGatewayParams, code == CodeCMDBParams, code == codeCMDBJSON, code == CodeGatewayBodyTooBig, code == codeGatewayURITooLong:
		return KindParams
	case code == CodeESBBackendFailed, code == codeJobUnavailable, code == codeJobInternal, code >= codeGatewayServerMin && code <= codeGatewayServerMax && code != codeGatewayLoop,
		status >= 500 && status != http.StatusNotImplemented && code != codeGatewayLoop:
		return KindServer
	}
	return KindOther
}
