package gse

import (
	"context"
	"errors"
	"time"
)

// pollTask polls a task until every wanted key has a final result. An
// unqueued task (1000115), a key at 115 (or 1015012, a GSE 2.0 process
// stopping) and a key missing from the map are pending: GSE leaves hosts out
// of the map for a while, so a missing host is not a failure until the deadline (bk-nodeman fails it at once; that turned
// slow tasks into false failures and hosts Terraform then forgot). It returns
// the final results so far, with the context's error when the deadline passed
// first (an *InterruptedError when a poll was failing at that moment), or the
// API's error when a poll failed. settled, when not nil, is told of each
// want[i] as its final result arrives.
func pollTask[K comparable](ctx context.Context, b backoff, poll func(context.Context) (map[K]HostResult, error), want []K, settled func(i int, r HostResult)) (map[K]HostResult, error) {
	final := make(map[K]HostResult, len(want))
	if len(want) == 0 {
		return final, nil
	}
	err := pollUntil(ctx, b, poll, func(data map[K]HostResult) bool {
		for _, i := range settle(data, want, final) {
			if settled != nil {
				settled(i, final[want[i]])
			}
		}
		return len(final) == len(want)
	})
	return final, err
}

// pollUntil is the poll loop of every task: it waits on b's schedule, polls,
// and hands each answer to absorb until absorb reports that nothing more is
// wanted. A poll answered "not queued yet" is pending. The first poll tells b
// whether it found the task done (adaptive first poll). It returns the
// context's error when ctx ends first (see deadlineCause), or the API's error
// when a poll failed.
func pollUntil[K comparable](ctx context.Context, b backoff, poll func(context.Context) (map[K]HostResult, error), absorb func(map[K]HostResult) (done bool)) error {
	sched := b.schedule(true) // from the submit
	for {
		if err := sched.Next(ctx); err != nil {
			return err
		}
		data, err := poll(ctx)
		if err != nil {
			if pending(err) {
				sched.Saw(false)
				continue
			}
			return deadlineCause(ctx, err)
		}
		done := absorb(data)
		sched.Saw(done)
		if done {
			return nil
		}
	}
}

// pending reports a poll answered "task not queued yet".
func pending(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.Code == CodeTaskNotQueued
}

// settle copies the final results of want from data into final, and returns
// the indexes in want of those that were not final before.
func settle[K comparable](data map[K]HostResult, want []K, final map[K]HostResult) []int {
	var fresh []int
	for i, k := range want {
		if r, ok := data[k]; ok && !hostPending(r.ErrorCode) {
			if _, seen := final[k]; !seen {
				fresh = append(fresh, i)
			}
			final[k] = r
		}
	}
	return fresh
}

// deadlineCause is err when ctx is still live; once ctx has ended it is the
// *InterruptedError err carries (why the calls were failing), or ctx's error.
func deadlineCause(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	var ie *InterruptedError
	if errors.As(err, &ie) {
		return ie
	}
	return ctx.Err()
}

// Begin marks ctx as the context of one operation of the caller's (a create,
// an update), begun now: a deadline of it that passes while the client paces
// for the rate limit is told as such (a *PacedError) when the installation
// refused any call since, be it one of this operation or of another.
func Begin(ctx context.Context) context.Context { return context.WithValue(ctx, beginKey, time.Now()) }

const beginKey ctxKey = 2

// begun is when the operation of ctx began (Begin), or since if earlier or
// unmarked.
func begun(ctx context.Context, since time.Time) time.Time {
	if t, ok := ctx.Value(beginKey).(time.Time); ok && t.Before(since) {
		return t
	}
	return since
}

// expired is why an operation of ctx, its part here begun at since, ran out of
// time: deadlineCause's answer, or, when nothing was failing at the end but the
// client was pacing for the rate limit (the installation refused calls since
// the operation began, see Begin; or calls wait their turn now at a rate
// refusals cut), a *PacedError saying so.
func (c *Client) expired(ctx context.Context, err error, since time.Time) error {
	cause := deadlineCause(ctx, err)
	var ie *InterruptedError
	if ctx.Err() == nil || errors.As(cause, &ie) {
		return cause
	}
	// Refused since the operation began, or pacing now at a rate refusals cut.
	t := c.Throttling()
	if t.LastRefused.After(begun(ctx, since)) || (t.Waiting > 0 && !t.LastRefused.IsZero()) {
		return &PacedError{Cause: cause, Throttling: t}
	}
	return cause
}

// conclude turns a task's final results into its outcome: each wanted host
// with a final result, and an error naming the hosts that failed and those
// still pending when the deadline passed (e is completed with them). A poll
// that failed for another reason than the deadline is returned as is.
func conclude[K comparable](ctx context.Context, pollErr error, e *HostsError, final map[K]HostResult, keys []K, wants []HostOutcome) (*Outcome, error) {
	out := &Outcome{TaskID: e.TaskID}
	if pollErr != nil && ctx.Err() == nil {
		return out, pollErr
	}
	e.Total = len(wants)
	for i, w := range wants {
		r, ok := final[keys[i]]
		if !ok {
			e.Pending = append(e.Pending, w.Host)
			continue
		}
		w.HostResult = r
		out.Hosts = append(out.Hosts, w)
		if !w.OK() {
			e.Failures = append(e.Failures, HostFailure{Host: w.Host, Code: r.ErrorCode, Message: r.ErrorMsg})
		}
	}
	if len(e.Failures) == 0 && len(e.Pending) == 0 {
		return out, nil
	}
	if len(e.Pending) > 0 {
		e.Cause = pollErr
		if e.Cause == nil {
			e.Cause = ctx.Err()
		}
	}
	return out, e
}
