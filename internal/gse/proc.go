package gse

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

const familyGSE = "gse"

// chunkSize bounds the hosts of one call, as production callers do.
const chunkSize = 1000

// chunkParallel bounds the chunks of one call in flight at once (the limiter
// paces them as any request): one after the other, the ten chunks of 10,000
// hosts are ten round trips, each of seconds on a busy GSE, before a status
// read answers or a create's task can begin.
const chunkParallel = 4

type procBody struct {
	Meta  Meta   `json:"meta"`
	Hosts []Host `json:"hosts"`
	Spec  *Spec  `json:"spec,omitempty"`
}

// RegisterProcInfo registers spec on hosts (register_proc_info). It returns the
// hosts it registered, also when it fails on others. A host answering 850
// (already registered) is a failure, unless this request may have registered
// it already: the host answered 115 before, or an earlier attempt of the same
// request failed after it may have reached GSE (a timeout, a cut reply, a
// 5xx). Hosts whose registration is unknown are the error's Pending hosts.
//
// GSE API: register_proc_info (ESB).
func (s *ProcService) RegisterProcInfo(ctx context.Context, meta Meta, hosts []Host, spec *Spec) ([]Host, error) {
	if err := s.esbOnly("register_proc_info"); err != nil {
		return nil, err
	}
	return s.syncHosts(ctx, "register_proc_info", procBody{Meta: meta, Hosts: hosts, Spec: spec.v1()}, func(code int, resent bool) bool {
		return code == HostOK || (code == HostRegistered && resent)
	})
}

// UpdateProcInfo sends a new spec to hosts (update_proc_info, an upsert).
// Through the gateway it sends {meta, agent_id_list, spec}, keyed by agent.
//
// GSE API: update_proc_info (ESB), /api/v2/proc/update_proc_info (gateway).
func (s *ProcService) UpdateProcInfo(ctx context.Context, meta Meta, hosts []Host, spec *Spec) ([]Host, error) {
	accept := func(code int, _ bool) bool { return code == HostOK || code == HostRegistered }
	if s.client.gateway != nil {
		return s.syncHostsVia(ctx, "update_proc_info", meta, hosts, func(hs []Host) any {
			return gatewayBody{Meta: meta, AgentIDList: addresses(hs), Spec: spec.gateway()}
		}, keyAgent, accept)
	}
	return s.syncHosts(ctx, "update_proc_info", procBody{Meta: meta, Hosts: hosts, Spec: spec.v1()}, accept)
}

// UnregisterProcInfo removes the process from hosts (unregister_proc_info).
// A process that is not there (829) counts as removed.
//
// GSE API: unregister_proc_info (ESB).
func (s *ProcService) UnregisterProcInfo(ctx context.Context, meta Meta, hosts []Host) ([]Host, error) {
	if err := s.esbOnly("unregister_proc_info"); err != nil {
		return nil, err
	}
	return s.syncHosts(ctx, "unregister_proc_info", procBody{Meta: meta, Hosts: hosts}, func(code int, _ bool) bool {
		return code == HostOK || code == HostNotRunning
	})
}

// esbOnly refuses an API that GSE 2.0's gateway does not serve: there,
// creating is an Operate carrying the spec (op 0 or 3), and nothing unregisters.
func (s *ProcService) esbOnly(api string) error {
	if s.client.gateway != nil {
		return fmt.Errorf("%s is not served by the GSE 2.0 gateway: operate with the full spec instead (op_type 0 or 3 to create, 1 or 4 to end)", api)
	}
	return nil
}

// syncHosts runs a synchronous per-host API, resending the request for hosts
// answered 115 (or left out of the reply) until they settle or ctx ends, on
// the poll schedule. accept judges a host's code; resent says the host may
// have been acted on by an earlier request or attempt.
func (s *ProcService) syncHosts(ctx context.Context, api string, body procBody, accept func(code int, resent bool) bool) ([]Host, error) {
	return s.syncHostsVia(ctx, api, body.Meta, body.Hosts, func(hs []Host) any {
		req := body
		req.Hosts = hs
		return req
	}, keyV1, accept)
}

// syncHostsVia is syncHosts for any body shape: body makes the request for
// some hosts, key the result key of each. The chunks of a large host list go
// out up to chunkParallel at once, as GetProcStatusV2's do. Once a chunk ends
// without an answer for every host (an unknown outcome, a refusal, the
// deadline), no further chunk begins, so that a failing installation is not
// sent the rest: the hosts of those never begun are NotActed, and the chunks
// already in flight finish.
func (s *ProcService) syncHostsVia(ctx context.Context, api string, meta Meta, hosts []Host, body func([]Host) any, key func(Host, Meta) string, accept func(code int, resent bool) bool) ([]Host, error) {
	chunks := slices.Collect(slices.Chunk(hosts, chunkSize))
	parts := make([]chunkSync, len(chunks))
	began := time.Now()
	var stop atomic.Bool
	var g errgroup.Group
	g.SetLimit(chunkParallel)
	for i, chunk := range chunks {
		g.Go(func() error {
			if stop.Load() {
				parts[i] = chunkSync{hosts: HostsError{NotActed: chunk}}
				return nil
			}
			parts[i] = s.syncChunk(ctx, api, meta, chunk, body, key, accept, began)
			if !parts[i].settled() {
				stop.Store(true)
			}
			return nil
		})
	}
	_ = g.Wait() // the chunks report in parts
	return joinChunks(api, meta, len(hosts), parts)
}

// chunkSync is how one chunk of a synchronous per-host call ended.
type chunkSync struct {
	done    []Host
	hosts   HostsError // its failed, pending and not acted on hosts, and why
	refusal error      // the call was refused as a whole: GSE acted on none of its hosts
}

// settled reports whether every host of the chunk has an answer.
func (p *chunkSync) settled() bool {
	return len(p.hosts.Pending) == 0 && len(p.hosts.NotActed) == 0 && p.refusal == nil
}

// syncChunk sends one chunk of hosts, resending those answered 115 (or left
// out of the reply) on the poll schedule until they settle or ctx ends.
func (s *ProcService) syncChunk(ctx context.Context, api string, meta Meta, chunk []Host, body func([]Host) any, key func(Host, Meta) string, accept func(code int, resent bool) bool, began time.Time) chunkSync {
	c := s.client
	var out chunkSync
	pending := chunk
	resent := map[Host]bool{}
	sched := c.poll.schedule(false)
	for n := 0; len(pending) > 0; n++ {
		if n > 0 {
			if err := sched.Next(ctx); err != nil {
				out.hosts.Pending, out.hosts.Cause = pending, c.expired(ctx, err, began)
				return out
			}
		}
		var data map[string]HostResult
		info, err := c.do(ctx, familyGSE, api, body(pending), &data, true)
		switch {
		case err != nil && ctx.Err() != nil && !info.mayHaveActed && !info.inFlight && len(resent) == 0:
			out.hosts.NotActed, out.hosts.Cause = pending, c.expired(ctx, err, began) // never sent, or only refused
			return out
		case err != nil && ctx.Err() != nil: // the deadline passed during the call
			out.hosts.Pending, out.hosts.Cause = pending, c.expired(ctx, err, began)
			return out
		case err != nil && (info.mayHaveActed || len(resent) > 0):
			out.hosts.Pending, out.hosts.Cause = pending, err // GSE may have acted on them
			return out
		case err != nil:
			out.hosts.NotActed, out.refusal = pending, err
			return out
		}
		var next []Host
		for _, h := range pending {
			r, ok := data[key(h, meta)]
			switch {
			case !ok || hostPending(r.ErrorCode):
				next = append(next, h)
				resent[h] = true
			case accept(r.ErrorCode, resent[h] || info.mayHaveActed):
				out.done = append(out.done, h)
			default:
				out.hosts.Failures = append(out.hosts.Failures, HostFailure{Host: h, Code: r.ErrorCode, Message: r.ErrorMsg})
			}
		}
		pending = next
	}
	return out
}

// joinChunks is the outcome of a call from those of its chunks, in order: the
// hosts done, and an error naming the others. A refusal alone stays the
// refusal (GSE acted on no host but those done), as for a call of one chunk;
// beside other failures, the refused hosts are NotActed. A chunk never begun
// has only NotActed hosts, and its cause is the one that stopped the call.
func joinChunks(api string, meta Meta, total int, parts []chunkSync) ([]Host, error) {
	var done []Host
	he := &HostsError{API: api, Target: meta, Total: total}
	var refusal error
	for _, p := range parts {
		done = append(done, p.done...)
		he.absorb(&p.hosts)
		if refusal == nil {
			refusal = p.refusal
		}
	}
	switch {
	case refusal != nil && len(he.Failures) == 0 && len(he.Pending) == 0 && he.Cause == nil:
		return done, refusal
	case !he.namesHosts():
		return done, nil
	}
	if he.Cause == nil {
		he.Cause = refusal
	}
	return done, he
}

// OperateRequest is one operation on one process across hosts.
type OperateRequest struct {
	Meta  Meta
	Hosts []Host
	Op    OpType
	Spec  *Spec // sent by operate_proc_v2 / operate_proc_multi; operate_proc uses the registered spec (unknown here: never a one-shot)
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

// operateProc submits a v1 operation (operate_proc) and returns its task id.
func (s *ProcService) operateProc(ctx context.Context, req OperateRequest) (string, error) {
	var out taskReply
	err := s.client.call(ctx, familyGSE, "operate_proc", operateBodyV1{Meta: req.Meta, Hosts: req.Hosts, OpType: req.Op}, &out, false)
	return out.TaskID, err
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
	// OneShot: the operation's spec makes the process a one-shot (Spec.OneShot).
	OneShot bool
	HostResult
}

// OK reports whether the result counts as success for its operation: 828 on
// start and 829 on stop, unhost and kill are no-ops, not failures (OpInfo.Also);
// 836 on a start or restart of a one-shot is its exit (OpInfo.OneShotAlso).
func (o HostOutcome) OK() bool { return o.Op.SucceededOn(o.ErrorCode, o.OneShot) }

// outcome is the outcome of r awaited on host h.
func (r OperateRequest) outcome(h Host) HostOutcome {
	return HostOutcome{Host: h, Meta: r.Meta, Op: r.Op, OneShot: r.Spec.OneShot()}
}

// Outcome is the result of an operation task.
type Outcome struct {
	TaskID string
	Hosts  []HostOutcome
}

// Operate runs an operation with its spec and waits for every host of req.
// Concurrent calls are coalesced into operate_proc_multi tasks (see batcher);
// each caller still gets only its own hosts' results, and a *HostsError naming
// each of its hosts that failed or never finished.
//
// GSE API: operate_proc_v2 or operate_proc_multi, then get_proc_operate_result_v2 (ESB),
// /api/v2/proc/ of the same (gateway).
func (s *ProcService) Operate(ctx context.Context, req OperateRequest) (*Outcome, error) {
	return s.client.ops.operate(ctx, req)
}

// OperateV1 runs an operation with operate_proc (the registered spec) and
// waits for every host. It is never batched: operate_proc has no multi form.
//
// GSE API: operate_proc, then get_proc_operate_result (ESB).
func (s *ProcService) OperateV1(ctx context.Context, req OperateRequest) (*Outcome, error) {
	c := s.client
	if err := s.esbOnly("operate_proc"); err != nil {
		return nil, err
	}
	taskID, err := s.operateProc(ctx, req)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(req.Hosts))
	wants := make([]HostOutcome, len(req.Hosts))
	for i, h := range req.Hosts {
		keys[i], wants[i] = keyV1(h, req.Meta), req.outcome(h)
	}
	report := progressOf(ctx)
	final, err := pollTask(ctx, c.poll, func(ctx context.Context) (map[string]HostResult, error) {
		return c.getResult(ctx, "get_proc_operate_result", taskID)
	}, keys, func(i int, r HostResult) { report(wants[i].with(r)) })
	return conclude(ctx, err, &HostsError{API: "operate_proc", Target: req.Meta, Op: &req.Op, TaskID: taskID}, final, keys, wants)
}

// Status reads cannot be coalesced like operations: get_proc_status_v2 takes
// one meta per call, and every resource reads its own process.

type statusBody struct {
	Meta  Meta `json:"meta"`
	Hosts any  `json:"hosts"`
}

type statusReply struct {
	Count     int          `json:"count"`
	ProcInfos []ProcStatus `json:"proc_infos"`
}

// GetProcStatusV2 reads the runtime state of a process on hosts
// (get_proc_status_v2), in chunks of 1000 hosts, up to chunkParallel of them
// at once (the limiter paces them as any request). A host absent from the
// result does not have the process registered. Through the gateway it sends
// agent_id_list; a host whose agent is down may be absent too, so check
// Cluster.ListAgentState before taking an absence for "not registered".
//
// GSE API: get_proc_status_v2 (ESB), /api/v2/proc/get_proc_status_v2 (gateway).
func (s *ProcService) GetProcStatusV2(ctx context.Context, meta Meta, hosts []Host) ([]ProcStatus, error) {
	m := Meta{Namespace: meta.Namespace, Name: meta.Name}
	chunks := slices.Collect(slices.Chunk(hosts, chunkSize))
	switch len(chunks) {
	case 0:
		return nil, nil // nothing to ask
	case 1:
		return s.statusChunk(ctx, m, hosts)
	}
	parts := make([][]ProcStatus, len(chunks))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(chunkParallel)
	for i, chunk := range chunks {
		g.Go(func() error {
			var err error
			parts[i], err = s.statusChunk(gctx, m, chunk)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.Concat(parts...), nil
}

// statusChunk is GetProcStatusV2 for at most chunkSize hosts.
func (s *ProcService) statusChunk(ctx context.Context, m Meta, hosts []Host) ([]ProcStatus, error) {
	if s.client.gateway != nil {
		return s.gatewayStatus(ctx, m, hosts)
	}
	var out statusReply
	if err := s.client.call(ctx, familyGSE, "get_proc_status_v2", statusBody{Meta: m, Hosts: toV2(hosts)}, &out, true); err != nil {
		return nil, err
	}
	return out.ProcInfos, nil
}
