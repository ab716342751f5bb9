package gse

import "context"

type progressKey struct{}

// WithProgress returns a context under which the operations (Operate,
// OperateV1, JobOperate and JobStatus) call fn with each host's final result
// as it arrives, while the task may still run on other hosts: the way
// net/http/httptrace hooks into a request. For JOB operations Meta is
// {scope, setup_path/proc_name}. fn runs on the goroutine that polls the
// task (one task may carry several callers' operations): keep it short.
func WithProgress(ctx context.Context, fn func(HostOutcome)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressOf is the hook of ctx, or one that does nothing.
func progressOf(ctx context.Context) func(HostOutcome) {
	if fn, ok := ctx.Value(progressKey{}).(func(HostOutcome)); ok && fn != nil {
		return fn
	}
	return func(HostOutcome) {}
}

// with is o with its final result.
func (o HostOutcome) with(r HostResult) HostOutcome {
	o.HostResult = r
	return o
}
