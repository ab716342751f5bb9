package gse

import (
	"context"
	"errors"
)

// pollTask polls a task until every wanted key has a final result. An
// unqueued task (1000115), a key at 115 and a key missing from the map are
// pending. It returns the final results so far, with the context's error when
// the deadline passed first, or the API's error when a poll failed.
func pollTask[K comparable](ctx context.Context, b backoff, poll func(context.Context) (map[K]HostResult, error), want []K) (map[K]HostResult, error) {
	final := make(map[K]HostResult, len(want))
	for n := 0; len(final) < len(want); n++ {
		if err := b.wait(ctx, n); err != nil {
			return final, err
		}
		data, err := poll(ctx)
		var apiErr *APIError
		switch {
		case errors.As(err, &apiErr) && apiErr.Code == CodeTaskNotQueued:
			continue
		case err != nil && ctx.Err() != nil:
			return final, ctx.Err()
		case err != nil:
			return final, err
		}
		for _, k := range want {
			if r, ok := data[k]; ok && r.ErrorCode != HostPending {
				final[k] = r
			}
		}
	}
	return final, nil
}

// taskError completes e with the hosts that failed and those still pending
// when the deadline passed; nil when there are none.
func taskError(ctx context.Context, e *HostsError, failures []HostFailure, pending []Host) error {
	if len(failures) == 0 && len(pending) == 0 {
		return nil
	}
	e.Failures, e.Pending = failures, pending
	if len(pending) > 0 {
		e.Cause = ctx.Err()
	}
	return e
}

// settle sorts the wanted outcomes by their final results: the ones done (with
// their results), the failures among them, and the hosts still pending.
func settle[K comparable](final map[K]HostResult, keys []K, wants []HostOutcome) (done []HostOutcome, failures []HostFailure, pending []Host) {
	for i, w := range wants {
		r, ok := final[keys[i]]
		if !ok {
			pending = append(pending, w.Host)
			continue
		}
		w.HostResult = r
		done = append(done, w)
		if !w.OK() {
			failures = append(failures, HostFailure{Host: w.Host, Code: r.ErrorCode, Message: r.ErrorMsg})
		}
	}
	return done, failures, pending
}
