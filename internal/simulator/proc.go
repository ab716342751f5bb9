package simulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Per-host codes of GSE's process APIs. codeNotRegistered is the simulator's
// choice: GSE's code for operating a process that is not registered is not
// documented publicly.
const (
	codeNotQueued = 1000115

	hostPending        = 115
	hostAlreadyRunning = 828
	hostNotRunning     = 829
	hostUnknownOp      = 832
	hostRegistered     = 850
	codeNotRegistered  = 404
)

// request is the body of a GSE process API call through ESB (and, with
// agent_id_list, through the GSE 2.0 gateway).
type request struct {
	auth
	Meta   wireMeta                    `json:"meta"`
	Hosts  []wireHost                  `json:"hosts"`
	Agents []string                    `json:"agent_id_list"`
	Spec   json.RawMessage             `json:"spec"`
	OpType *int                        `json:"op_type"`
	TaskID string                      `json:"task_id"`
	Multi  []request                   `json:"proc_operate_req"`
	Page   *struct{ Start, Limit int } `json:"page"`
}

type wireMeta struct {
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Labels    map[string]string `json:"labels,omitempty"`
}

type wireHost struct {
	IP           string `json:"ip"`
	BkCloudID    int64  `json:"bk_cloud_id"`
	BkSupplierID int64  `json:"bk_supplier_id"`
}

type wireSpec struct {
	Identity struct {
		ProcName  string `json:"proc_name"`
		SetupPath string `json:"setup_path"`
		PidPath   string `json:"pid_path"`
		User      string `json:"user"`
	} `json:"identity"`
	MonitorPolicy *struct {
		AutoType int `json:"auto_type"`
	} `json:"monitor_policy"`
	AliveMonitorPolicy *struct {
		AutoType int `json:"auto_type"`
	} `json:"alive_monitor_policy"`
}

type hostResult struct {
	ErrorCode int    `json:"error_code"`
	ErrorMsg  string `json:"error_msg"`
	Content   string `json:"content"`
}

func (s *Server) serveGSE(w http.ResponseWriter, r *http.Request) {
	s.serve(w, r, "", func(api string, raw []byte) (any, *apiError) {
		var req request
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, badParams("the body does not match %s: %v", api, err)
		}
		return s.dispatch(api, &req)
	})
}

func (s *Server) dispatch(api string, req *request) (any, *apiError) {
	switch api {
	case "register_proc_info", "update_proc_info", "unregister_proc_info":
		return s.syncProc(api, req)
	case "operate_proc", "operate_proc_v2":
		return s.submit(api, []request{*req}, false)
	case "operate_proc_multi":
		if len(req.Multi) == 0 {
			return nil, badParams("proc_operate_req must not be empty")
		}
		return s.submit(api, req.Multi, false)
	case "get_proc_operate_result", "get_proc_operate_result_v2":
		return s.poll(api, req.TaskID)
	case "get_proc_status", "get_proc_status_v2":
		return s.status(api, req)
	case "sync_proc_status":
		return s.syncStatus(req, nil)
	}
	return nil, &apiError{codeComponentNotFound, "Not found, component class not found, " + api}
}

// validateTarget checks meta and the hosts (gw: agent_id_list).
func validateTarget(req *request, gw bool) *apiError {
	if req.Meta.Namespace == "" || req.Meta.Name == "" {
		return badParams("meta.namespace and meta.name are required")
	}
	if gw {
		return validateAgents(req.Agents)
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

// parseSpec checks a spec; v2 wants alive_monitor_policy, else monitor_policy
// (the gateway takes either: see gatewaySpec).
func parseSpec(raw json.RawMessage, v2 bool) (*wireSpec, *apiError) {
	sp, err := parseIdentity(raw)
	if err != nil {
		return nil, err
	}
	if v2 && sp.AliveMonitorPolicy == nil {
		return nil, badParams("spec.alive_monitor_policy is required")
	}
	if !v2 && sp.MonitorPolicy == nil {
		return nil, badParams("spec.monitor_policy is required")
	}
	return sp, nil
}

func parseIdentity(raw json.RawMessage) (*wireSpec, *apiError) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, badParams("spec is required")
	}
	var sp wireSpec
	if err := json.Unmarshal(raw, &sp); err != nil {
		return nil, badParams("spec: %v", err)
	}
	id := sp.Identity
	if id.ProcName == "" || id.SetupPath == "" || id.PidPath == "" || id.User == "" {
		return nil, badParams("spec.identity needs proc_name, setup_path, pid_path and user")
	}
	return &sp, nil
}

// syncProc serves register / update / unregister: synchronous, per-host results keyed v1.
func (s *Server) syncProc(api string, req *request) (any, *apiError) {
	if err := validateTarget(req, false); err != nil {
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
	now := time.Now().Unix()
	for _, h := range req.Hosts {
		key := fmt.Sprintf("%d:%d:%s:%s:%s", h.BkCloudID, h.BkSupplierID, h.IP, req.Meta.Namespace, req.Meta.Name)
		if f := s.takeHostFault(api, h.IP, -1); f != nil {
			if !f.Missing {
				out[key] = hostResult{ErrorCode: f.Code, ErrorMsg: f.Message}
			}
			continue
		}
		k := keyOf(req.Meta.Namespace, req.Meta.Name, h.BkCloudID, h.IP)
		p, exists := s.procs[k]
		switch {
		case api == "register_proc_info" && exists:
			out[key] = hostResult{ErrorCode: hostRegistered, ErrorMsg: "process already registered"}
		case api == "unregister_proc_info" && !exists:
			out[key] = hostResult{ErrorCode: hostNotRunning, ErrorMsg: "process not registered"}
		case api == "unregister_proc_info":
			delete(s.procs, k)
			out[key] = hostResult{ErrorMsg: "success"}
		default: // register, or update (an upsert)
			if !exists {
				p = &Process{Namespace: req.Meta.Namespace, Name: req.Meta.Name, IP: h.IP, BkCloudID: h.BkCloudID, PID: -1, RegisterTime: now}
				s.procs[k] = p
			}
			p.BkSupplierID, p.Labels, p.Spec = h.BkSupplierID, req.Meta.Labels, append(json.RawMessage(nil), req.Spec...)
			p.ProcName, p.SetupPath = sp.Identity.ProcName, sp.Identity.SetupPath
			out[key] = hostResult{ErrorMsg: "success"}
		}
	}
	return out, nil
}
