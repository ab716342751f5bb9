package simulator

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// GSE is the endpoint of GSE's process APIs through ESB
// (/api/c/compapi/v2/gse/{api}): register, update and unregister,
// asynchronous operations, status reads. It keeps the GSE processes of every
// host, which the GSE 2.0 gateway (Gateway) serves too. Calls and faults are
// counted under the bare API name.
type GSE struct {
	book
	down map[procKey]bool // hosts whose agent is down (Server.SetAgentDown), keyOf with namespace and name empty
}

func (g *GSE) serveDrift(w http.ResponseWriter, r *http.Request) {
	serveAdmin(w, r, func(d struct {
		Action    string `json:"action"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		BkCloudID int64  `json:"bk_cloud_id"`
		IP        string `json:"ip"`
	}) error {
		return g.Drift(d.Action, d.Namespace, d.Name, d.BkCloudID, d.IP)
	})
}

func (g *GSE) serveProcesses(w http.ResponseWriter, _ *http.Request) { writeJSON(w, g.Processes()) }

func (g *GSE) serve(w http.ResponseWriter, r *http.Request) {
	g.hub.serve(w, r, "", func(api string, raw []byte) (any, *apiError) {
		var req request
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, badParams("the body does not match %s: %v", api, err)
		}
		return g.dispatch(api, &req)
	})
}

func (g *GSE) dispatch(api string, req *request) (any, *apiError) {
	switch api {
	case "register_proc_info", "update_proc_info", "unregister_proc_info":
		return g.syncProc(api, req)
	case "operate_proc", "operate_proc_v2":
		return g.submit(api, []request{*req}, g)
	case "operate_proc_multi":
		if len(req.Multi) == 0 {
			return nil, badParams("proc_operate_req must not be empty")
		}
		return g.submit(api, req.Multi, g)
	case "get_proc_operate_result", "get_proc_operate_result_v2":
		return g.poll(api, req.TaskID)
	case "get_proc_status", "get_proc_status_v2":
		return g.status(api, req)
	case "sync_proc_status":
		return g.syncStatus(req, nil)
	}
	return nil, &apiError{codeComponentNotFound, "Not found, component class not found, " + api}
}

// validate is ESB's check of a request's meta and hosts (GSE is the ESB door).
func (g *GSE) validate(req *request) *apiError {
	if err := validateMeta(req); err != nil {
		return err
	}
	if len(req.Hosts) == 0 {
		return badParams("hosts must not be empty")
	}
	for _, h := range req.Hosts {
		if h.IP == "" {
			return badParams("hosts[].ip is required")
		}
	}
	return nil
}

// checkSpec is ESB's check of an operation's spec: operate_proc (v1) has none.
func (g *GSE) checkSpec(req *request, v1 bool) *apiError {
	if v1 {
		return nil
	}
	_, err := parseSpec(req.Spec, true)
	return err
}

// targets are the hosts of an ESB request with their result keys.
func (g *GSE) targets(req *request, v1 bool) []target {
	ns, name := req.Meta.Namespace, req.Meta.Name
	var out []target
	for _, h := range req.Hosts {
		key := fmt.Sprintf("%d:%s:%s:%s", h.BkCloudID, h.IP, ns, name)
		if v1 {
			key = fmt.Sprintf("%d:%d:%s:%s:%s", h.BkCloudID, h.BkSupplierID, h.IP, ns, name)
		}
		tg := target{host: h, key: key}
		if g.down[keyOf("", "", h.BkCloudID, h.IP)] {
			tg.agentFault = &hostResult{ErrorCode: hostAgentAbnormal, ErrorMsg: "agent is abnormal or offline"}
		}
		out = append(out, tg)
	}
	return out
}

// syncProc serves register / update / unregister: synchronous, per-host results keyed v1.
func (g *GSE) syncProc(api string, req *request) (any, *apiError) {
	if err := g.validate(req); err != nil {
		return nil, err
	}
	var sp *wireSpec
	if api != "unregister_proc_info" {
		var err *apiError
		if sp, err = parseSpec(req.Spec, false); err != nil {
			return nil, err
		}
	}
	out := map[string]hostResult{}
	now := g.hub.clock.now().Unix()
	for _, h := range req.Hosts {
		key := fmt.Sprintf("%d:%d:%s:%s:%s", h.BkCloudID, h.BkSupplierID, h.IP, req.Meta.Namespace, req.Meta.Name)
		if f := g.hub.takeHostFault(api, h.IP, noOp); f != nil {
			if !f.Missing {
				out[key] = hostResult{ErrorCode: f.Code, ErrorMsg: f.Message}
			}
			continue
		}
		k := keyOf(req.Meta.Namespace, req.Meta.Name, h.BkCloudID, h.IP)
		p, exists := g.procs[k]
		switch {
		case api == "register_proc_info" && exists:
			out[key] = hostResult{ErrorCode: hostRegistered, ErrorMsg: "process already registered"}
		case api == "unregister_proc_info" && !exists:
			out[key] = hostResult{ErrorCode: hostNotRunning, ErrorMsg: "process not registered"}
		case api == "unregister_proc_info":
			delete(g.procs, k)
			out[key] = hostResult{ErrorMsg: "success"}
		default: // register, or update (an upsert)
			if !exists {
				p = &Process{Namespace: req.Meta.Namespace, Name: req.Meta.Name, IP: h.IP, BkCloudID: h.BkCloudID, PID: -1, RegisterTime: now}
				g.procs[k] = p
			}
			p.BkSupplierID, p.Spec = h.BkSupplierID, append(json.RawMessage(nil), req.Spec...)
			p.setLabels(g.hub.labelsAfter(p.labels, req.Meta.Labels))
			p.ProcName, p.SetupPath = sp.Identity.ProcName, sp.Identity.SetupPath
			out[key] = hostResult{ErrorMsg: "success"}
		}
	}
	return out, nil
}
