package simulator

import (
	"encoding/json"
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
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Labels    labels `json:"labels,omitempty"`
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
	Resource *struct {
		CPU *float64 `json:"cpu"`
		Mem *float64 `json:"mem"`
	} `json:"resource"`
}

// validateMeta checks the meta of a request; each door checks its hosts.
func validateMeta(req *request) *apiError {
	if req.Meta.Namespace == "" || req.Meta.Name == "" {
		return badParams("meta.namespace and meta.name are required")
	}
	return nil
}

// parseSpec checks a spec; v2 (operate_proc_v2, operate_proc_multi) wants
// alive_monitor_policy and defines no resource block (the gateway takes
// either policy name and no resource: see gatewaySpec); v1
// (register_proc_info, update_proc_info) wants monitor_policy and resource
// with its cpu and mem, which their docs mark required (legacy-bk-paas
// paas2/esb/components/confapis/gse/apidocs/zh_hans/register_proc_info.md,
// update_proc_info.md; GSE's own code is not public).
func parseSpec(raw json.RawMessage, v2 bool) (*wireSpec, *apiError) {
	sp, err := parseIdentity(raw)
	if err != nil {
		return nil, err
	}
	switch {
	case v2 && sp.AliveMonitorPolicy == nil:
		return nil, badParams("spec.alive_monitor_policy is required")
	case !v2 && sp.MonitorPolicy == nil:
		return nil, badParams("spec.monitor_policy is required")
	case !v2 && (sp.Resource == nil || sp.Resource.CPU == nil || sp.Resource.Mem == nil):
		return nil, badParams("spec.resource with cpu and mem is required")
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

// autoType is the hosting type of the operation's spec, else of the registered one.
func autoType(req request, p *Process) int {
	for _, raw := range []json.RawMessage{req.Spec, p.Spec} {
		var sp wireSpec
		if json.Unmarshal(raw, &sp) != nil {
			continue
		}
		if sp.AliveMonitorPolicy != nil {
			return sp.AliveMonitorPolicy.AutoType
		}
		if sp.MonitorPolicy != nil {
			return sp.MonitorPolicy.AutoType
		}
	}
	return 0
}
