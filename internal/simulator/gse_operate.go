package simulator

import (
	"encoding/json"
	"fmt"
)

// GSE's operations, through either door: a task per request, its effects at
// once (the agent's, agent.go), its results revealed by polls (tasks.go).

// door is how a GSE request names its hosts: ESB by IP (the GSE endpoint),
// the GSE 2.0 gateway by agent id (the Gateway endpoint).
type door interface {
	// validate checks the meta and the hosts of a request.
	validate(req *request) *apiError
	// checkSpec checks the spec of an operation (v1: operate_proc).
	checkSpec(req *request, v1 bool) *apiError
	// targets are the hosts of a request with their result keys (v1: operate_proc's).
	targets(req *request, v1 bool) []target
}

// target is one host of a request and its result key; agentFault is set
// when its agent is unknown or down, so nothing may happen on it.
type target struct {
	host       wireHost
	key        string
	agent      string // the agent id as sent (gateway requests)
	agentFault *hostResult
}

// submit starts an operate task of reqs, which came through d. Through the
// gateway the spec creates the process (see operate).
func (g *GSE) submit(api string, reqs []request, d door) (any, *apiError) {
	v1 := api == "operate_proc"
	t := g.hub.newTask()
	t.v1 = v1
	var also []string
	if api == "operate_proc_multi" {
		also = []string{"operate_proc_v2"} // its items are operate_proc_v2 bodies
	}
	rec := TaskRecord{API: api, Items: len(reqs)}
	for i := range reqs {
		req := &reqs[i]
		if err := d.validate(req); err != nil {
			return nil, err
		}
		if req.OpType == nil {
			return nil, badParams("op_type is required")
		}
		if err := d.checkSpec(req, v1); err != nil {
			return nil, err
		}
	}
	for _, req := range reqs {
		op := opType(*req.OpType)
		for _, tg := range d.targets(&req, v1) {
			key, h := tg.key, tg.host
			rec.Hosts++
			rec.Targets = append(rec.Targets, TaskTarget{Process: req.Meta.Namespace + "/" + req.Meta.Name, Op: *req.OpType, BkCloudID: h.BkCloudID, IP: h.IP})
			if tg.agentFault != nil { // the agent is down or unknown: nothing happens
				t.results[key] = *tg.agentFault
				continue
			}
			f := g.hub.takeHostFault(api, h.IP, op, also...)
			switch {
			case f != nil && f.Missing:
				t.missing[key] = true
				t.results[key] = g.operate(req, tg, op)
			case f != nil:
				t.results[key] = hostResult{ErrorCode: f.Code, ErrorMsg: f.Message}
			default:
				t.results[key] = g.operate(req, tg, op)
			}
		}
	}
	return map[string]string{"task_id": g.hub.logTask(t, rec)}, nil
}

// operate applies op to a registered GSE process on one host. Through the
// gateway, the operation's spec is the process's: start or register
// hosting creates a process that is not there.
func (g *GSE) operate(req request, tg target, op opType) hostResult {
	h := tg.host
	k := keyOf(req.Meta.Namespace, req.Meta.Name, h.BkCloudID, h.IP)
	p, ok := g.procs[k]
	if tg.agent != "" && (ok || op == opStart || op == opRegisterHosting) {
		p = g.upsert(k, req, tg)
		ok = true
	}
	if !ok {
		return hostResult{ErrorCode: codeNotRegistered, ErrorMsg: fmt.Sprintf("process %s/%s is not registered on this host", req.Meta.Namespace, req.Meta.Name)}
	}
	return g.hub.apply(p, op, autoType(req, p))
}

// upsert creates or updates the process of a gateway request on tg's host.
func (g *GSE) upsert(k procKey, req request, tg target) *Process {
	p, ok := g.procs[k]
	if !ok {
		p = &Process{Namespace: req.Meta.Namespace, Name: req.Meta.Name, IP: tg.host.IP, BkCloudID: tg.host.BkCloudID, PID: -1, RegisterTime: g.hub.clock.now().Unix()}
		g.procs[k] = p
	}
	p.AgentID = tg.agent
	p.setLabels(g.hub.labelsAfter(p.labels, req.Meta.Labels))
	if sp, err := parseIdentity(req.Spec); err == nil {
		p.Spec = append(json.RawMessage(nil), req.Spec...)
		p.ProcName, p.SetupPath = sp.Identity.ProcName, sp.Identity.SetupPath
	}
	return p
}

// poll answers get_proc_operate_result(_v2) for a GSE task of that version.
func (g *GSE) poll(api, id string) (any, *apiError) {
	t, ok := g.hub.tasks.byID[id]
	if !ok || t.job || t.v1 != (api == "get_proc_operate_result") {
		return nil, badParams("task %q not found for %s", id, api)
	}
	results, done, err := t.answer()
	g.hub.closeTask(t, done)
	return results, err
}
