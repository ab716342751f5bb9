package simulator

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// JOB's own refusals of its v3 APIs, as bk-job writes them: its envelope
// (src/backend/commons/esb-sdk/.../esb/model/EsbResp.java: code, result,
// job_request_id, message, data, and permission for an IAM refusal), HTTP
// 200 (common-web exception/handler/EsbExceptionControllerAdvice.java),
// passed unchanged by ESB (legacy-bk-paas paas2/esb/components/bk/apisv2/jobv3/job_component.py)
// and by the bk-job gateway. Messages are bk-job's English ones
// (commons/common-i18n/src/main/resources/i18n/exception/message_en.properties).

// JOB's codes answered here (commons/common/.../constant/ErrorCode.java).
const (
	codeJobUnavailable   = 1240001 // SERVICE_UNAVAILABLE
	codeJobInternal      = 1240002 // INTERNAL_ERROR: handleException of anything unexpected
	codeJobScriptTargets = 1244022 // SCRIPT_TASK_TARGET_SERVER_EXCEEDS_LIMIT
	codeIAMNoPermission  = 9900403 // BK_PERMISSION_DENIED
	// jobScriptTargetsMax is job.execute.limit.script-task.max-target-server's
	// default (service-job-execute config/JobExecuteConfig.java).
	jobScriptTargetsMax = 50000
)

// jobMessages are the messages of the codes a Fault makes JOB answer.
var jobMessages = map[int]string{
	codeJobUnavailable:  "Service Unavailable",
	codeJobInternal:     "Internal Server Error",
	codeIAMNoPermission: "User (%s) permission not allowed, please confirm and apply permission in IAM and try again",
}

// SetScriptTargetsMax sets job.execute.limit.script-task.max-target-server,
// the most targets of one fast_execute_script job (0: JOB's default, 50000).
func (j *JOBv3) SetScriptTargetsMax(n int) {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	j.scriptTargetsMax = n
}

// checkScriptTargets is TaskExecuteServiceImpl.checkStepInstanceAtomicTasksLimit
// for a script step: more targets than the limit are refused, naming it,
// before the job is saved.
func (j *JOBv3) checkScriptTargets(n int) *apiError {
	limit := cmp.Or(j.scriptTargetsMax, jobScriptTargetsMax)
	if n > limit {
		return &apiError{codeJobScriptTargets, fmt.Sprintf("The number of script task target servers exceeds the limit: %d", limit)}
	}
	return nil
}

// jobRefusal is JOB's envelope refusing the request raw to api with code; an
// IAM refusal names what the user lacks.
func jobRefusal(code int, api string, raw []byte) reply {
	var req struct {
		auth
		jobv3Request
	}
	_ = json.Unmarshal(raw, &req)
	msg := jobMessages[code]
	rep := reply{status: http.StatusOK, code: code, msg: msg, shape: shapeJob}
	if code == codeIAMNoPermission {
		rep.msg = fmt.Sprintf(msg, cmp.Or(req.Username, "admin"))
		rep.permission = jobPermission(strings.TrimPrefix(api, "jobv3/"), &req.jobv3Request)
	}
	return rep
}

// jobActions are the IAM actions JOB checks for each v3 API (bk-job
// commons/common-iam/.../constant/ActionId.java; execute-svc
// TaskExecuteServiceImpl.authExecuteScript and authFileTransfer: the
// account, then the hosts), with their English names (common-i18n
// i18n/common/message_en.properties permission.action.name.*).
var jobActions = map[string][]struct{ id, name, on string }{
	"fast_execute_script": {{"use_account", "Use Account", "account"}, {"quick_execute_script", "Script Execution (Quick Launch)", "host"}},
	"push_config_file":    {{"use_account", "Use Account", "account"}, {"quick_transfer_file", "File Transfer (Quick Launch)", "host"}},
}

// jobPermission is the permission of JOB's IAM refusal of req to api
// (common-iam AuthServiceImpl.buildEsbAuthFailResp): each action on the
// account or the target hosts, each instance a path from the business.
func jobPermission(api string, req *jobv3Request) map[string]any {
	biz := map[string]any{"id": req.ScopeID, "type": "biz", "type_name": "Business", "name": "business " + req.ScopeID}
	var actions []map[string]any
	for _, a := range jobActions[api] {
		rt := map[string]any{"system_id": "bk_job", "system_name": "Job", "type": "account", "type_name": "Accounts"}
		var instances [][]map[string]any
		if a.on == "account" {
			instances = append(instances, []map[string]any{biz, {"id": req.Account, "type": "account", "type_name": "Accounts", "name": req.Account}})
		} else {
			rt = map[string]any{"system_id": "bk_cmdb", "system_name": "Cmdb", "type": "host", "type_name": "Hosts"}
			for _, h := range requestHosts(req) {
				instances = append(instances, []map[string]any{biz, {"id": h, "type": "host", "type_name": "Hosts", "name": h}})
			}
		}
		rt["instances"] = instances
		actions = append(actions, map[string]any{"id": a.id, "name": a.name, "related_resource_types": []any{rt}})
	}
	return map[string]any{"system_id": "bk_job", "system_name": "Job", "actions": actions}
}

// requestHosts names the target hosts of req: by bk_host_id, else by ip.
func requestHosts(req *jobv3Request) []string {
	var out []string
	if req.Target == nil {
		return nil
	}
	for _, id := range req.Target.HostIDs {
		out = append(out, strconv.FormatInt(id, 10))
	}
	if len(out) == 0 {
		for _, ip := range req.Target.IPs {
			out = append(out, ip.IP)
		}
	}
	return out
}

// jobEnvelope is the body JOB writes for rep, logged as request id.
func jobEnvelope(rep reply, id [16]byte) map[string]any {
	env := map[string]any{"code": rep.code, "result": rep.code == 0, "job_request_id": hex.EncodeToString(id[:]), "message": rep.msg, "data": rep.data}
	if rep.permission != nil {
		env["permission"] = rep.permission
	}
	return env
}
