package gse

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Per-host error_code values of GSE task results (BlueKing's GSE API docs).
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
	HostStopping       = 1015012 // GSE 2.0: the process is stopping; pending like 115
)

// hostPending reports a per-host code that is not final yet.
func hostPending(code int) bool { return code == HostPending || code == HostStopping }

// MissingAPI reports whether err is an API the installation lacks, and which.
func MissingAPI(err error) (string, bool) {
	var ae *APIError
	if errors.As(err, &ae) && ae.Kind() == KindMissingAPI {
		return ae.API, true
	}
	return "", false
}

// APIError is a call that GSE, ESB, the gateway or bk-cmdb refused as a
// whole. Its text describes the API only.
type APIError struct {
	API        string
	Root       Root // where the call went
	HTTPStatus int
	Code       int
	CodeName   string // the gateway's name of Code, such as INVALID_ARGS
	Message    string
	// RequestID is the id the server logged the call under: ESB's
	// request_id, JOB's job_request_id, else the X-Request-Id the client
	// sent, which the gateway and bk-cmdb log (bk-request-id.lua, rdapi
	// GenerateHttpHeaderRID). GatewayRequestID is the X-Bkapi-Request-ID
	// the gateway gave the call (it overwrites the client's).
	RequestID        string
	GatewayRequestID string
	Attempts         int
	Credential       string // credential refusals: the kind of credentials sent
	// Permission is what an IAM refusal (CodeIAMNoPermission) says the user
	// lacks, when the server names it.
	Permission *IAMPermission
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", e.API)
	switch {
	case e.Code != 0 && e.HTTPStatus != http.StatusOK && e.HTTPStatus != 0:
		fmt.Fprintf(&b, "HTTP %d, code %d", e.HTTPStatus, e.Code)
	case e.Code != 0 || e.HTTPStatus == http.StatusOK:
		fmt.Fprintf(&b, "code %d", e.Code)
	default:
		fmt.Fprintf(&b, "HTTP %d", e.HTTPStatus)
	}
	if e.CodeName != "" {
		fmt.Fprintf(&b, " %s", e.CodeName)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	switch e.Kind() {
	case KindAuth:
		if e.Credential != "" {
			fmt.Fprintf(&b, " (the %s credentials sent were refused)", e.Credential)
		}
	case KindPermission:
		fmt.Fprintf(&b, " (the app has no permission for the API %s: it needs a grant for it)", e.API)
	}
	if e.Code == CodeIAMNoPermission && e.Permission != nil {
		fmt.Fprintf(&b, " (%v: apply for the permission in BlueKing IAM, or use a user who has it)", e.Permission)
	}
	if e.Code == CodeGatewayBodyTooBig {
		b.WriteString(" (the request body is too large for the gateway)")
	}
	switch {
	case e.RequestID != "" && e.GatewayRequestID != "":
		fmt.Fprintf(&b, " (request id %s, gateway request id %s)", e.RequestID, e.GatewayRequestID)
	case e.RequestID != "":
		fmt.Fprintf(&b, " (request id %s)", e.RequestID)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	return b.String()
}

// Kind says what sort of refusal this is.
func (e *APIError) Kind() Kind { return classify(e.HTTPStatus, e.Code, e.CodeName, e.Message) }

// MayHaveActed reports whether the server behind may have acted on the
// refused request: a backend that failed or timed out may have done the
// work first; anything refused in front of it (credentials, tenant, rate,
// parameters) or answered by it as a refusal did nothing.
func (e *APIError) MayHaveActed() bool { return e.Kind() == KindServer }

// KindOf is the Kind of the APIError in err's chain, or KindOther.
func KindOf(err error) Kind {
	var removed *RemovedError
	if errors.As(err, &removed) {
		return KindRemoved
	}
	var paced *PacedError
	if errors.As(err, &paced) {
		return KindRateLimited
	}
	var e *APIError
	if errors.As(err, &e) {
		return e.Kind()
	}
	return KindOther
}

// RemovedError is a JOB process API (manage_proc, operate_proc,
// operate_process, get_proc_result) the installation no longer serves:
// bk-job deleted the four in commit 2a899882a (2022-06-15, first tagged
// v3.7.0-alpha.64), and an ESB that still routes them answers 1306201
// "Status Code: 404" (its backend's 404), one that no longer does its own
// 404. It is never retried. Any other 1306201 is JOB failing for a while.
type RemovedError struct{ *APIError }

func (e *RemovedError) Error() string {
	return fmt.Sprintf("%v: this installation's JOB (3.7 or later) no longer serves %s", e.APIError, e.API)
}

func (e *RemovedError) Unwrap() error { return e.APIError }

// Kind is KindRemoved, whatever the code.
func (e *RemovedError) Kind() Kind { return KindRemoved }

// jobRemoved turns a JOB process API that is missing into a RemovedError.
func jobRemoved(err error) error {
	var e *APIError
	if errors.As(err, &e) && e.Kind() == KindMissingAPI {
		return &RemovedError{APIError: e}
	}
	return err
}

// ReplyError is a reply that could not be read to its end (the connection was
// cut, the body was short) or that is not a GSE envelope.
type ReplyError struct {
	API        string
	HTTPStatus int
	RequestID  string
	Attempts   int
	Err        error  // the read or decode error
	Body       string // the start of what was received
	// MayHaveActed: the call is not safe to repeat, and the server had the
	// request, so it may have acted on it (and the call was not sent again).
	MayHaveActed bool
}

func (e *ReplyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: HTTP %d reply unreadable: %v", e.API, e.HTTPStatus, e.Err)
	if e.Body != "" {
		fmt.Fprintf(&b, " (received: %s)", e.Body)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " (request id %s)", e.RequestID)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.MayHaveActed {
		b.WriteString("; the server had the request and may have acted on it, so it was not sent again")
	}
	return b.String()
}

func (e *ReplyError) Unwrap() error { return e.Err }

// InterruptedError is a call whose context ended while it was being retried:
// Cause is the context's error, Last why the latest attempt had failed (its
// text starts with the API).
type InterruptedError struct {
	Cause error
	Last  error
	// Throttling, when Last is a refusal for the rate limit, is how much the
	// installation refused the client's requests.
	Throttling *Throttling
}

func (e *InterruptedError) Error() string {
	if e.Throttling != nil {
		return fmt.Sprintf("%v while the installation was throttling the calls: %v; the last refusal: %v", e.Cause, e.Throttling, e.Last)
	}
	return fmt.Sprintf("%v while retrying %v", e.Cause, e.Last)
}

func (e *InterruptedError) Unwrap() []error { return []error{e.Cause, e.Last} }

// PacedError is a deadline that passed while the client paced its calls
// because the installation had refused some of them for the app's rate limit
// since the operation began: the calls were not failing, they waited their
// turn, and the operation ran out of time waiting.
type PacedError struct {
	Cause      error
	Throttling Throttling
}

func (e *PacedError) Error() string {
	return fmt.Sprintf("%v while the client paced its calls for the app's rate limit: %v", e.Cause, e.Throttling)
}

func (e *PacedError) Unwrap() error { return e.Cause }

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
	return s
}

// HostsError reports the hosts on which a call or an operation failed or never finished.
type HostsError struct {
	API      string
	Target   fmt.Stringer // the process: a Meta (GSE) or a JobTarget or JobScope (JOB)
	Op       *OpType
	TaskID   string
	Total    int
	Failures []HostFailure
	// Pending hosts have no final result: GSE may have acted on them, or may
	// still act. Cause says why: the context's error when the deadline passed
	// (an *InterruptedError when a call was failing at that moment), or the
	// call that failed.
	Pending []Host
	Cause   error
	// NotActed hosts were in no request GSE can have acted on: the deadline
	// (Cause) passed before it was sent, or while every attempt sent was
	// refused for the app's rate limit; or, for a call sent in chunks, their
	// chunk was refused as a whole or never sent once another had failed.
	// Nothing was done on them.
	NotActed []Host
	// Waited is how long the task had been running when the deadline passed
	// (zero when there is no task, or it finished).
	Waited time.Duration
}

func (e *HostsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", e.API)
	if e.Op != nil {
		fmt.Fprintf(&b, " %s", *e.Op)
	}
	if e.Target != nil {
		fmt.Fprintf(&b, " of %s", e.Target)
	}
	if e.TaskID != "" {
		fmt.Fprintf(&b, " (task %s)", e.TaskID)
	}
	if len(e.Failures) > 0 {
		fmt.Fprintf(&b, " failed on %d of %d hosts:", len(e.Failures), e.Total)
		for _, f := range e.Failures {
			b.WriteString("\n  - " + f.String())
		}
	}
	if len(e.NotActed) > 0 {
		if len(e.Failures) > 0 {
			b.WriteString("\n and")
		}
		if e.DeadlinePassed() {
			fmt.Fprintf(&b, " was not sent to %d of %d hosts before the deadline (%v):", len(e.NotActed), e.Total, e.Cause)
		} else {
			fmt.Fprintf(&b, " was refused on %d of %d hosts, or not sent once a call of it had failed (%v):", len(e.NotActed), e.Total, e.Cause)
		}
		for _, h := range e.NotActed {
			b.WriteString("\n  - " + h.String() + ": nothing done there")
		}
	}
	if len(e.Pending) > 0 {
		if len(e.Failures) > 0 || len(e.NotActed) > 0 {
			b.WriteString("\n and")
		}
		switch {
		case e.DeadlinePassed() && e.Waited > 0:
			fmt.Fprintf(&b, " did not finish on %d of %d hosts in the %s it ran before the deadline (%v):", len(e.Pending), e.Total, e.Waited.Round(100*time.Millisecond), e.Cause)
		case e.DeadlinePassed():
			fmt.Fprintf(&b, " did not finish on %d of %d hosts before the deadline (%v):", len(e.Pending), e.Total, e.Cause)
		default:
			fmt.Fprintf(&b, " has no result on %d of %d hosts (%v):", len(e.Pending), e.Total, e.Cause)
		}
		for _, h := range e.Pending {
			b.WriteString("\n  - " + h.String() + ": still pending")
		}
	}
	return b.String()
}

func (e *HostsError) Unwrap() error { return e.Cause }

// absorb adds the hosts of o, a part of the same call (a chunk, an item), to
// e, and o's cause when e has none yet.
func (e *HostsError) absorb(o *HostsError) {
	e.Failures = append(e.Failures, o.Failures...)
	e.Pending = append(e.Pending, o.Pending...)
	e.NotActed = append(e.NotActed, o.NotActed...)
	if e.Cause == nil {
		e.Cause = o.Cause
	}
}

// namesHosts reports whether e names any host: failed, pending or not acted on.
func (e *HostsError) namesHosts() bool {
	return len(e.Failures) > 0 || len(e.Pending) > 0 || len(e.NotActed) > 0
}

// DeadlinePassed reports whether hosts are pending because the context ended.
func (e *HostsError) DeadlinePassed() bool {
	return errors.Is(e.Cause, context.DeadlineExceeded) || errors.Is(e.Cause, context.Canceled)
}

// Codes lists the distinct per-host codes of the failures, in order of appearance.
func (e *HostsError) Codes() []int {
	var out []int
	seen := map[int]bool{}
	for _, f := range e.Failures {
		if !seen[f.Code] {
			seen[f.Code] = true
			out = append(out, f.Code)
		}
	}
	return out
}

// Root is which configured root URL a call went to.
type Root int

// The roots a call may go to (Config.Endpoint, GatewayURL, CMDBGatewayURL, JobGatewayURL).
const (
	RootESB Root = iota
	RootGateway
	RootCMDBGateway
	RootJobGateway
	rootCount
)

// ConnectError is a call whose last attempt could not connect to the root it
// went to (refused, unreachable, a name that does not resolve): most often a
// wrong root URL in the configuration.
type ConnectError struct {
	API  string
	Root Root
	URL  string // scheme and host of the root
	Err  error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("%s: could not connect to %s: %v", e.API, e.URL, e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }
