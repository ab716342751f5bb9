package gse

import "context"

// Operate and JobOperate forward to the services for the one caller not moved
// on this branch: internal/provider/process_operation_resource.go belongs to
// another branch (issue 10). At merge, change its two calls to
// client.Proc.Operate and client.Job.Operate and delete this file.

// Operate is Proc.Operate.
func (c *Client) Operate(ctx context.Context, req OperateRequest) (*Outcome, error) {
	return c.Proc.Operate(ctx, req)
}

// JobOperate is Job.Operate.
func (c *Client) JobOperate(ctx context.Context, scope JobScope, op OpType, procs []JobProcess) (*JobOutcome, error) {
	return c.Job.Operate(ctx, scope, op, procs)
}
