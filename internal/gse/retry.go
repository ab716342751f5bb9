package gse

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// newRetryClient is go-retryablehttp with the retry story of every call, in
// the order it runs it: the logging hook (logAttempt) waits for the limiter
// and logs each retry; the policy (checkRetry over retryPolicy) decides
// whether an attempt is retried within the call's budgets; the backoff
// (throttleBackoff over retryBackoff) says how long to wait; the give-up hook
// (giveUp) hands the last failure to the caller. Waits are cfg's; the
// library's own attempt bound is lifted: checkRetry keeps the budgets
// (Config.MaxRetries for faults, the context for refusals).
func (c *Client) newRetryClient(cfg Config, transport http.RoundTripper) *retryablehttp.Client {
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{Transport: transport, Timeout: orDefault(cfg.RequestTimeout, defaultRequestTimeout)}
	rc.Logger = nil // it would print to stderr; calls are logged through c.log instead
	rc.RetryMax = math.MaxInt32
	rc.RetryWaitMin = orDefault(cfg.RetryWaitMin, defaultRetryWaitMin)
	rc.RetryWaitMax = orDefault(cfg.RetryWaitMax, defaultRetryWaitMax)
	rc.RequestLogHook = c.logAttempt
	rc.CheckRetry = checkRetry
	rc.Backoff = throttleBackoff
	rc.ErrorHandler = giveUp
	return rc
}

// logAttempt, the request hook, counts the call's attempts, makes each wait
// for the limiter and logs every retry with the failure it follows.
func (c *Client) logAttempt(_ retryablehttp.Logger, req *http.Request, attempt int) {
	info, _ := req.Context().Value(callKey).(*callInfo)
	if info == nil {
		return
	}
	info.attempts = attempt + 1
	// The attempt waits its turn here, before its timeout starts; when the
	// context ends meanwhile, the attempt fails at once with its error.
	info.inFlight = info.pacer.wait(req.Context(), info.api) == nil
	if attempt > 0 {
		fields := map[string]any{"api": info.api, "request_id": info.requestID, "attempt": attempt + 1}
		if info.last != nil {
			fields["previous_error"] = info.last.Error()
		}
		c.log.Warn(req.Context(), "retrying GSE API call", fields)
	}
}

// Throttling is not failure. A call refused for the app's rate limit waits
// (the limiter has slowed down meanwhile) and tries again until its context
// ends: max_retries is the budget of real faults only. A context that can
// never end (context.Background) still has a bound: refusals count
// against max_retries too.

// checkRetry is retryPolicy within the call's budgets.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	retry, err := retryPolicy(ctx, resp, err)
	info, _ := ctx.Value(callKey).(*callInfo)
	if !retry || info == nil {
		return retry, err
	}
	if info.lastThrottled && ctx.Done() != nil {
		return true, err
	}
	info.faults++
	return info.faults <= info.maxRetries, err
}

// retryPolicy is the single retry policy of every call (checkRetry bounds
// it). It reads each reply to its end, so a reply cut short is a failed
// attempt like a reset.
//
// Idempotent calls (status, result polls, register/update/unregister) are
// retried on transport errors, replies cut short or undecodable, 5xx, HTTP 429
// and rate-limit codes in a 200 body. An operate submit is retried only where
// the request cannot have started a task: the connection was never made, or
// the API refused it for rate limits. Re-sending it after an ambiguous failure
// could start a second GSE task.
func retryPolicy(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err() // an attempt in flight stays so (callInfo.inFlight)
	}
	info, _ := ctx.Value(callKey).(*callInfo)
	if info == nil {
		info = &callInfo{idempotent: true}
	}
	info.inFlight = false
	var failed error
	if err == nil {
		raw, readErr := bufferReply(resp)
		env, decodeErr := decodeEnvelope(raw)
		failed = attemptError(info, resp, raw, readErr, env, decodeErr)
		// A reply cut short may follow work done; a failed or timed-out
		// backend may have done the work first; a refusal in front of it did nothing.
		info.note(ctx, failed, readErr != nil || KindOf(failed) == KindServer)
		var re *ReplyError
		if errors.As(failed, &re) {
			err = re // cut short or not an envelope: as unusable as a reset
		}
	} else {
		info.note(ctx, err, !neverSent(err))
	}
	if err != nil {
		if !info.idempotent && !neverSent(err) {
			return false, nil
		}
		// The default policy knows which transport errors are permanent (bad TLS certificate, scheme, redirects).
		return retryablehttp.DefaultRetryPolicy(ctx, nil, err)
	}
	if failed == nil {
		return false, nil
	}
	switch KindOf(failed) {
	case KindRateLimited:
		return true, nil
	case KindServer:
		return info.idempotent, nil
	}
	return false, nil
}

// note records an attempt's failure (nil: it succeeded) on the call and on
// the lastFailure its context carries, if any.
func (info *callInfo) note(ctx context.Context, err error, acted bool) {
	if err != nil {
		info.last = err
		info.mayHaveActed = info.mayHaveActed || acted
	}
	info.sawThrottle(err)
	if lf, ok := ctx.Value(lastFailureKey).(*lastFailure); ok {
		if pending(err) {
			err = nil // a task not queued yet is pending, not failing
		}
		lf.set(err)
	}
}

const lastFailureKey ctxKey = 1

// lastFailure keeps the failure of the latest attempt of the calls made with
// a context, for a waiter that gives up while a shared call is still retrying:
// it reports why the calls were failing rather than only "deadline exceeded".
type lastFailure struct {
	mu  sync.Mutex
	err error
}

func withLastFailure(ctx context.Context) (context.Context, *lastFailure) {
	lf := &lastFailure{}
	return context.WithValue(ctx, lastFailureKey, lf), lf
}

func (lf *lastFailure) set(err error) {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	lf.err = err
}

func (lf *lastFailure) get() error {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	return lf.err
}

// sawThrottle records whether an attempt's failure (nil: none) was a refusal
// for the rate limit, and tells the limiter of every call of the client.
func (info *callInfo) sawThrottle(err error) {
	var ae *APIError
	info.lastThrottled = errors.As(err, &ae) && ae.Kind() == KindRateLimited
	switch {
	case info.pacer == nil:
	case info.lastThrottled:
		info.pacer.throttled(info.api, cmp.Or(ae.Code, ae.HTTPStatus))
	default:
		info.pacer.served(info.api)
	}
}

// maxReply bounds a reply body.
const maxReply = 64 << 20

// bufferReply reads a reply to its end and puts it back as a body that
// yields the same bytes and then the read error, if there was one.
func bufferReply(resp *http.Response) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	resp.Body.Close()
	resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(raw), errReader{err}))
	return raw, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}

// neverSent reports a failure to connect, after which the server saw nothing.
func neverSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// throttleBackoff is the wait before sending a refused request again: short,
// for the limiter has slowed down and paces it (backing off exponentially
// too left the quota unused for seconds). A server's Retry-After is honoured,
// and other failures back off as retryBackoff says.
func throttleBackoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && resp.Request != nil {
		if info, _ := resp.Request.Context().Value(callKey).(*callInfo); info != nil && info.lastThrottled {
			if _, ok := serverWait(resp.Header); !ok {
				return minWait + rand.N(minWait+1)
			}
		}
	}
	return retryBackoff(minWait, maxWait, attempt, resp)
}

// retryBackoff honours Retry-After and X-Bkapi-RateLimit-Reset when a server
// sends them; the BlueKing gateway sends neither (it only has quota headers
// where a stage enables them), so without them it waits an exponentially
// growing, jittered interval between min and max.
func retryBackoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := serverWait(resp.Header); ok {
			return d
		}
	}
	d := maxWait
	if attempt < 32 {
		if e := minWait * time.Duration(1<<attempt); e > 0 && e < maxWait {
			d = e
		}
	}
	return d/2 + rand.N(d/2+1) // "equal jitter": never less than half the step
}

func serverWait(h http.Header) (time.Duration, bool) {
	for _, name := range []string{"Retry-After", "X-Bkapi-RateLimit-Reset"} {
		v := h.Get(name)
		if v == "" {
			continue
		}
		if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
			if s > 1e9 { // an absolute unix time
				s = int64(math.Max(0, time.Until(time.Unix(s, 0)).Seconds()))
			}
			return min(time.Duration(s)*time.Second, maxServerWait), true
		}
		if t, err := http.ParseTime(v); err == nil {
			return min(max(time.Until(t), 0), maxServerWait), true
		}
	}
	return 0, false
}

// giveUp hands the last reply to the caller, so the API's own error (code,
// message, request id) is reported rather than "giving up after N attempts".
func giveUp(resp *http.Response, err error, numTries int) (*http.Response, error) {
	if err == nil {
		return resp, nil
	}
	if resp != nil {
		resp.Body.Close()
	}
	return nil, fmt.Errorf("giving up after %d attempt(s): %w", numTries, err)
}

// interrupted is the error of a call whose context ended (cause) while it
// was failing with last; when the installation was throttling it, the error
// says how much.
func (c *Client) interrupted(cause, last error) *InterruptedError {
	e := &InterruptedError{Cause: cause, Last: last}
	if KindOf(last) == KindRateLimited {
		t := c.Throttling()
		e.Throttling = &t
	}
	return e
}
