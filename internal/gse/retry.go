package gse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// maxServerWait bounds how long a Retry-After or rate-limit reset is honoured.
const maxServerWait = 2 * time.Minute

// checkRetry is the single retry policy of every call.
//
// Idempotent calls (status, result polls, register/update/unregister) are
// retried on transport errors, 5xx, HTTP 429 and rate-limit codes in a 200 body.
// An operate submit is retried only where the request cannot have started a
// task: the connection was never made, or the API refused it for rate limits.
// Re-sending it after an ambiguous failure could start a second GSE task.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	info, _ := ctx.Value(callKey).(*callInfo)
	idempotent := info == nil || info.idempotent
	if err != nil {
		if !idempotent && !neverSent(err) {
			return false, nil
		}
		// The default policy knows which transport errors are permanent (bad TLS certificate, scheme, redirects).
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return true, nil
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
		return idempotent, nil
	case resp.StatusCode == http.StatusOK:
		return isRateLimit(peekCode(resp)), nil
	}
	return false, nil
}

// neverSent reports a failure to connect, after which the server saw nothing.
func neverSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// peekCode reads the envelope code of a reply and puts the body back.
func peekCode(resp *http.Response) int {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	if err != nil {
		return 0
	}
	var e struct {
		Code int `json:"code"`
	}
	_ = json.Unmarshal(raw, &e)
	return e.Code
}

// retryBackoff honours Retry-After and X-Bkapi-RateLimit-Reset; otherwise it
// waits an exponentially growing, jittered interval between min and max.
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

func (c *Client) logAttempt(_ retryablehttp.Logger, req *http.Request, attempt int) {
	info, _ := req.Context().Value(callKey).(*callInfo)
	if info == nil {
		return
	}
	info.attempts = attempt + 1
	if attempt > 0 {
		c.log.Warn(req.Context(), "retrying GSE API call", map[string]any{"api": info.api, "request_id": info.requestID, "attempt": attempt + 1})
	}
}

func attemptsOf(resp *http.Response) int {
	if resp.Request == nil {
		return 1
	}
	if info, _ := resp.Request.Context().Value(callKey).(*callInfo); info != nil {
		return info.attempts
	}
	return 1
}

// backoff paces polls: the first comes after min, each next one 1.5 times
// later up to max, with ±20% jitter so many resources do not poll in step.
type backoff struct{ min, max time.Duration }

func (b backoff) interval(n int) time.Duration {
	d := float64(b.min) * math.Pow(1.5, float64(n))
	d = math.Min(d, float64(b.max))
	return time.Duration(d * (0.8 + 0.4*rand.Float64()))
}

// wait sleeps for the n-th interval or until ctx ends.
func (b backoff) wait(ctx context.Context, n int) error {
	t := time.NewTimer(b.interval(n))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
