package gse

import (
	"errors"
	"fmt"
	"strings"
)

// API-level codes of the contract (§4).
const (
	CodeTaskNotQueued   = 1000115 // result polls: the task is not queued yet
	CodeESBRateLimited  = 1306429
	codeGatewayLimitMin = 1642901
	codeGatewayLimitMax = 1642904
)

// Per-host codes of the contract (§4).
const (
	HostOK             = 0
	HostPending        = 115
	HostAgentAbnormal  = 117
	HostAlreadyRunning = 828
	HostNotRunning     = 829
	HostUnknownOp      = 832
	HostPostCheck      = 836
	HostRegistered     = 850
	HostCommandFailed  = 65535
)

func isRateLimit(code int) bool {
	return code == CodeESBRateLimited || (code >= codeGatewayLimitMin && code <= codeGatewayLimitMax)
}

func isAuthCode(code int) bool {
	switch code {
	case 1306401, 1306402, 1306403, 1640101, 1640102, 1640301:
		return true
	}
	return false
}

// APIError is a call that GSE (or ESB, or the gateway) refused as a whole.
type APIError struct {
	API        string
	HTTPStatus int
	Code       int
	Message    string
	RequestID  string
	Attempts   int
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", e.API)
	if e.Code != 0 || e.HTTPStatus == 200 {
		fmt.Fprintf(&b, "GSE code %d", e.Code)
	} else {
		fmt.Fprintf(&b, "HTTP %d", e.HTTPStatus)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " (request id %s)", e.RequestID)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if h := e.hint(); h != "" {
		b.WriteString(". " + h)
	}
	return b.String()
}

func (e *APIError) hint() string {
	switch {
	case isAuthCode(e.Code):
		return "Check the app code and app secret, and that the user (username or bk_token) has permission for this API"
	case e.Code == 1306406 || e.Code == 1640001:
		return "The request parameters were refused; fix the values named in the message"
	case isRateLimit(e.Code) || e.HTTPStatus == 429:
		return "The API is rate limited; retry later or raise max_retries"
	case e.HTTPStatus >= 500:
		return "The server kept failing; check the endpoint and retry later"
	}
	return ""
}

// IsAuth reports whether err is an authentication or permission refusal.
func IsAuth(err error) bool {
	var e *APIError
	return errors.As(err, &e) && isAuthCode(e.Code)
}

// HostFailure is one host's failed result.
type HostFailure struct {
	Host    Host
	Code    int
	Message string
}

func (f HostFailure) String() string {
	s := fmt.Sprintf("%s: GSE code %d", f.Host, f.Code)
	if f.Message != "" {
		s += ": " + f.Message
	}
	if h := hostHint(f.Code); h != "" {
		s += ". " + h
	}
	return s
}

func hostHint(code int) string {
	switch code {
	case HostPending:
		return "GSE was still processing it when the deadline passed; raise the timeout or check the agent"
	case HostAgentAbnormal:
		return "The GSE agent on this host is abnormal or offline; repair it (for example with bk-nodeman) and retry"
	case HostUnknownOp:
		return "GSE does not know this operation"
	case HostPostCheck:
		return "The command ran but the process is not in the expected state; check the commands, pid_path and the process log"
	case HostRegistered:
		return "The process is already registered on this host; import it instead of creating it, or unregister it first"
	case HostCommandFailed:
		return "The command failed on the host; its output is in the message"
	}
	return ""
}

// HostsError reports the hosts on which a call or an operation failed or never finished.
type HostsError struct {
	API      string
	Meta     Meta
	Op       *OpType
	TaskID   string
	Total    int
	Failures []HostFailure
	Pending  []Host // still pending when the deadline passed
	Cause    error  // the context error when the deadline passed
}

func (e *HostsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", e.API)
	if e.Op != nil {
		fmt.Fprintf(&b, " %s", *e.Op)
	}
	fmt.Fprintf(&b, " of %s", e.Meta)
	if e.TaskID != "" {
		fmt.Fprintf(&b, " (task %s)", e.TaskID)
	}
	if len(e.Failures) > 0 {
		fmt.Fprintf(&b, " failed on %d of %d hosts:", len(e.Failures), e.Total)
		for _, f := range e.Failures {
			b.WriteString("\n  - " + f.String())
		}
	}
	if len(e.Pending) > 0 {
		if len(e.Failures) > 0 {
			b.WriteString("\n and")
		}
		fmt.Fprintf(&b, " did not finish on %d of %d hosts before the deadline (%v):", len(e.Pending), e.Total, e.Cause)
		for _, h := range e.Pending {
			b.WriteString("\n  - " + h.String() + ": still pending; raise the timeout or check the agent on this host")
		}
	}
	return b.String()
}

func (e *HostsError) Unwrap() error { return e.Cause }
