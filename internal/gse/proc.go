package gse

import (
	"context"
	"slices"
)

const familyGSE = "gse"

// chunkSize bounds the hosts of one call, as production callers do.
const chunkSize = 1000

type procBody struct {
	Meta  Meta   `json:"meta"`
	Hosts []Host `json:"hosts"`
	Spec  *Spec  `json:"spec,omitempty"`
}

// RegisterProcInfo registers spec on hosts (register_proc_info). It returns the
// hosts it registered, also when it fails on others. A host answering 850
// (already registered) is a failure, unless it had answered 115 before: then
// the earlier request did the work.
func (c *Client) RegisterProcInfo(ctx context.Context, meta Meta, hosts []Host, spec *Spec) ([]Host, error) {
	return c.syncHosts(ctx, "register_proc_info", procBody{Meta: meta, Hosts: hosts, Spec: spec}, func(code int, resent bool) bool {
		return code == HostOK || (code == HostRegistered && resent)
	})
}

// UpdateProcInfo sends a new spec to hosts (update_proc_info, an upsert).
func (c *Client) UpdateProcInfo(ctx context.Context, meta Meta, hosts []Host, spec *Spec) ([]Host, error) {
	return c.syncHosts(ctx, "update_proc_info", procBody{Meta: meta, Hosts: hosts, Spec: spec}, func(code int, _ bool) bool {
		return code == HostOK || code == HostRegistered
	})
}

// UnregisterProcInfo removes the process from hosts (unregister_proc_info).
// A process that is not there (829) counts as removed.
func (c *Client) UnregisterProcInfo(ctx context.Context, meta Meta, hosts []Host) ([]Host, error) {
	return c.syncHosts(ctx, "unregister_proc_info", procBody{Meta: meta, Hosts: hosts}, func(code int, _ bool) bool {
		return code == HostOK || code == HostNotRunning
	})
}

// syncHosts runs a synchronous per-host API, resending the request for hosts
// answered 115 (or left out of the reply) until they settle or ctx ends.
func (c *Client) syncHosts(ctx context.Context, api string, body procBody, accept func(code int, resent bool) bool) ([]Host, error) {
	var done []Host
	hostsErr := &HostsError{API: api, Meta: body.Meta, Total: len(body.Hosts)}
	for chunk := range slices.Chunk(body.Hosts, chunkSize) {
		pending := chunk
		resent := map[Host]bool{}
		for n := 0; len(pending) > 0; n++ {
			if n > 0 {
				if err := c.poll.wait(ctx, n-1); err != nil {
					hostsErr.Pending, hostsErr.Cause = pending, err
					return done, hostsErr
				}
			}
			var data map[string]HostResult
			req := body
			req.Hosts = pending
			if err := c.call(ctx, familyGSE, api, req, &data, true); err != nil {
				if ctx.Err() != nil { // the deadline passed during the call: report what is pending
					hostsErr.Pending, hostsErr.Cause = pending, ctx.Err()
					return done, hostsErr
				}
				return done, err
			}
			var next []Host
			for _, h := range pending {
				r, ok := data[keyV1(h, body.Meta)]
				switch {
				case !ok || r.ErrorCode == HostPending:
					next = append(next, h)
					resent[h] = true
				case accept(r.ErrorCode, resent[h]):
					done = append(done, h)
				default:
					hostsErr.Failures = append(hostsErr.Failures, HostFailure{Host: h, Code: r.ErrorCode, Message: r.ErrorMsg})
				}
			}
			pending = next
		}
	}
	if len(hostsErr.Failures) > 0 {
		return done, hostsErr
	}
	return done, nil
}

// OperateRequest is one operation on one process across hosts.
type OperateRequest struct {
	Meta  Meta
	Hosts []Host
	Op    OpType
	Spec  *Spec // sent by operate_proc_v2 / operate_proc_multi; operate_proc uses the registered spec
}

type operateBodyV1 struct {
	Meta   Meta   `json:"meta"`
	Hosts  []Host `json:"hosts"`
	OpType OpType `json:"op_type"`
}

type operateBodyV2 struct {
	Meta   Meta     `json:"meta"`
	Hosts  []hostV2 `json:"hosts"`
	OpType OpType   `json:"op_type"`
	Spec   *specV2  `json:"spec,omitempty"`
}

func (r OperateRequest) v2() operateBodyV2 {
	return operateBodyV2{Meta: r.Meta, Hosts: toV2(r.Hosts), OpType: r.Op, Spec: r.Spec.v2()}
}

type taskReply struct {
	TaskID string `json:"task_id"`
}

// OperateProc submits a v1 operation (operate_proc) and returns its task id.
func (c *Client) OperateProc(ctx context.Context, req OperateRequest) (string, error) {
	var out taskReply
	err := c.call(ctx, familyGSE, "operate_proc", operateBodyV1{Meta: req.Meta, Hosts: req.Hosts, OpType: req.Op}, &out, false)
	return out.TaskID, err
}

// OperateProcV2 submits an operation with its spec (operate_proc_v2) and returns its task id.
func (c *Client) OperateProcV2(ctx context.Context, req OperateRequest) (string, error) {
	var out taskReply
	err := c.call(ctx, familyGSE, "operate_proc_v2", req.v2(), &out, false)
	return out.TaskID, err
}

// OperateProcMulti submits several operations as one task (operate_proc_multi).
func (c *Client) OperateProcMulti(ctx context.Context, reqs []OperateRequest) (string, error) {
	body := struct {
		Reqs []operateBodyV2 `json:"proc_operate_req"`
	}{}
	for _, r := range reqs {
		body.Reqs = append(body.Reqs, r.v2())
	}
	var out taskReply
	err := c.call(ctx, familyGSE, "operate_proc_multi", body, &out, false)
	return out.TaskID, err
}

// GetProcOperateResult polls a v1 task once; keys are bk_cloud_id:bk_supplier_id:ip:namespace:name.
func (c *Client) GetProcOperateResult(ctx context.Context, taskID string) (map[string]HostResult, error) {
	return c.getResult(ctx, "get_proc_operate_result", taskID)
}

// GetProcOperateResultV2 polls a v2 task once; keys are bk_cloud_id:ip:namespace:name.
func (c *Client) GetProcOperateResultV2(ctx context.Context, taskID string) (map[string]HostResult, error) {
	return c.getResult(ctx, "get_proc_operate_result_v2", taskID)
}

func (c *Client) getResult(ctx context.Context, api, taskID string) (map[string]HostResult, error) {
	var out map[string]HostResult
	err := c.call(ctx, familyGSE, api, struct {
		TaskID string `json:"task_id"`
	}{taskID}, &out, true)
	return out, err
}

// HostOutcome is one host's final result of an operation.
type HostOutcome struct {
	Host Host
	Meta Meta
	Op   OpType
	HostResult
}

// OK reports whether the result counts as success for its operation: 828 on
// start and 829 on stop, unhost and kill are no-ops, not failures.
func (o HostOutcome) OK() bool {
	switch o.ErrorCode {
	case HostOK:
		return true
	case HostAlreadyRunning:
		return o.Op == OpStart
	case HostNotRunning:
		return o.Op == OpStop || o.Op == OpUnhost || o.Op == OpKill
	}
	return false
}

// Outcome is the result of an operation task.
type Outcome struct {
	TaskID string
	Hosts  []HostOutcome
}

// Operate runs an operation with operate_proc_v2 and waits for every host.
// It fails with a *HostsError naming each host that failed or never finished.
func (c *Client) Operate(ctx context.Context, req OperateRequest) (*Outcome, error) {
	taskID, err := c.OperateProcV2(ctx, req)
	if err != nil {
		return nil, err
	}
	return c.wait(ctx, "operate_proc_v2", taskID, c.GetProcOperateResultV2, keyV2, req)
}

// OperateMulti runs several operations as one operate_proc_multi task and waits for every host.
func (c *Client) OperateMulti(ctx context.Context, reqs ...OperateRequest) (*Outcome, error) {
	taskID, err := c.OperateProcMulti(ctx, reqs)
	if err != nil {
		return nil, err
	}
	return c.wait(ctx, "operate_proc_multi", taskID, c.GetProcOperateResultV2, keyV2, reqs...)
}

// OperateV1 runs an operation with operate_proc (the registered spec) and waits for every host.
func (c *Client) OperateV1(ctx context.Context, req OperateRequest) (*Outcome, error) {
	taskID, err := c.OperateProc(ctx, req)
	if err != nil {
		return nil, err
	}
	return c.wait(ctx, "operate_proc", taskID, c.GetProcOperateResult, keyV1, req)
}

// wait polls a task until every host of reqs has a final result or ctx ends.
func (c *Client) wait(ctx context.Context, api, taskID string, poll func(context.Context, string) (map[string]HostResult, error),
	key func(Host, Meta) string, reqs ...OperateRequest) (*Outcome, error) {
	var keys []string
	var wants []HostOutcome
	for _, r := range reqs {
		for _, h := range r.Hosts {
			keys = append(keys, key(h, r.Meta))
			wants = append(wants, HostOutcome{Host: h, Meta: r.Meta, Op: r.Op})
		}
	}
	final, err := pollTask(ctx, c.poll, func(ctx context.Context) (map[string]HostResult, error) { return poll(ctx, taskID) }, keys)
	return conclude(ctx, err, &HostsError{API: api, Meta: reqs[0].Meta, Op: &reqs[0].Op, TaskID: taskID}, final, keys, wants)
}

type statusBody struct {
	Meta  Meta `json:"meta"`
	Hosts any  `json:"hosts"`
}

type statusReply struct {
	Count     int          `json:"count"`
	ProcInfos []ProcStatus `json:"proc_infos"`
}

// GetProcStatusV2 reads the runtime state of a process on hosts
// (get_proc_status_v2), in chunks of 1000 hosts. A host absent from the
// result does not have the process registered.
func (c *Client) GetProcStatusV2(ctx context.Context, meta Meta, hosts []Host) ([]ProcStatus, error) {
	return c.status(ctx, "get_proc_status_v2", meta, hosts, func(h []Host) any { return toV2(h) })
}

// GetProcStatus is the v1 status read (get_proc_status); it has no isauto.
func (c *Client) GetProcStatus(ctx context.Context, meta Meta, hosts []Host) ([]ProcStatus, error) {
	return c.status(ctx, "get_proc_status", meta, hosts, func(h []Host) any { return h })
}

func (c *Client) status(ctx context.Context, api string, meta Meta, hosts []Host, wire func([]Host) any) ([]ProcStatus, error) {
	m := Meta{Namespace: meta.Namespace, Name: meta.Name}
	var all []ProcStatus
	for chunk := range slices.Chunk(hosts, chunkSize) {
		var out statusReply
		if err := c.call(ctx, familyGSE, api, statusBody{Meta: m, Hosts: wire(chunk)}, &out, true); err != nil {
			return nil, err
		}
		all = append(all, out.ProcInfos...)
	}
	return all, nil
}

// SyncProcStatus lists the processes of a namespace, one page at a time
// (sync_proc_status, limit at most 1000). Its data can be minutes old.
func (c *Client) SyncProcStatus(ctx context.Context, namespace string, start, limit int) (int, []ProcStatus, error) {
	body := struct {
		Meta struct {
			Namespace string `json:"namespace"`
		} `json:"meta"`
		Page struct {
			Start int `json:"start"`
			Limit int `json:"limit"`
		} `json:"page"`
	}{}
	body.Meta.Namespace = namespace
	body.Page.Start, body.Page.Limit = start, min(limit, 1000)
	var out statusReply
	err := c.call(ctx, familyGSE, "sync_proc_status", body, &out, true)
	return out.Count, out.ProcInfos, err
}
