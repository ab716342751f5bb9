package gse

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"
)

// Throttling is not failure. A call refused for the app's rate limit waits
// (the limiter has slowed down meanwhile) and tries again until its context
// ends: max_retries is the budget of real faults only. A context that can
// never end (context.Background) keeps the old bound: refusals count
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

// sawThrottle records whether an attempt's failure (nil: none) was a refusal
// for the rate limit, and tells the limiter of every call of the client.
func (info *callInfo) sawThrottle(err error) {
	var ae *APIError
	info.lastThrottled = errors.As(err, &ae) && ae.Kind() == KindRateLimited
	switch {
	case info.limiter == nil:
	case info.lastThrottled:
		info.limiter.Throttled(cmp.Or(ae.Code, ae.HTTPStatus))
	default:
		info.limiter.Served()
	}
}

// interrupted is the error of a call whose context ended (cause) while it
// was failing with last; when the installation was throttling it, the error
// says how much.
func (c *Client) interrupted(cause, last error) *InterruptedError {
	e := &InterruptedError{Cause: cause, Last: last}
	if KindOf(last) == KindRateLimited {
		t := c.limiter.Throttling()
		e.Throttling = &t
	}
	return e
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
