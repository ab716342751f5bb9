package simulator

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// bk-cmdb's process definitions: each module's service template holds
// process templates, and each host of the module a service instance with one
// process per template. GSEKit and bk-bscp read them with the hidden
// list_process_related_info (ESB cc/list_process_related_info; the bk-cmdb
// gateway's /api/v3/findmany/proc/process_related_info/biz/{bk_biz_id}),
// answered here as proc_server's ListProcessRelatedInfo does (bk-cmdb
// src/scene_server/proc_server/service/processinstance.go
// listProcessRelatedInfo; src/common/metadata/process.go
// ListProcessRelatedInfoOption and ListProcessRelatedInfoResult). Calls and
// faults are counted as "cc/list_process_related_info" in both forms.

const (
	cmdbProcAPI = "cc/list_process_related_info"
	// cmdbNoLimit is BKNoLimit, the one page.limit above cmdbMaxLimit that
	// BasePage.IsIllegal lets through (src/common/definitions.go).
	cmdbNoLimit = 999999999
)

// CMDBProcessTemplate is a process template of a module's service template:
// the process fields its processes take (bk_func_name, bk_process_name,
// work_path, pid_file, user, start_cmd, stop_cmd, restart_cmd, reload_cmd,
// face_stop_cmd, bk_start_check_secs, timeout, priority, proc_num, and
// bind_info as its rows: row_id, ip as a bind type, port, protocol, enable).
type CMDBProcessTemplate struct {
	ID int64 `json:"id"`
	// ModuleIDs are the modules its service template is applied to.
	ModuleIDs []int64        `json:"bk_module_ids"`
	Fields    map[string]any `json:"fields"`
}

// cmdbProcessFields are the process fields (metadata.Process) a stored
// process document holds, null when unset.
var cmdbProcessFields = []string{
	"bk_func_name", "bk_process_name", "work_path", "pid_file", "user", "start_cmd", "stop_cmd", "restart_cmd",
	"reload_cmd", "face_stop_cmd", "bk_start_check_secs", "timeout", "priority", "proc_num", "auto_start", "bind_info",
	"bk_start_param_regex", "description",
}

// generateProcessTemplates gives the generated business's modules (n of
// them) their service templates' process templates: nginx (2 instances a
// host) and agent (one a host, its paths naming the module: one template,
// a spec per module) on every module, then svc3, svc4, ... (2 instances a
// host) up to templates (Options.CMDBProcessTemplates) on every module, and on the first
// module legacy, whose start command uses GSEKit's ${inst_id}, which lives in
// GSEKit's database.
func (c *CMDB) generateProcessTemplates(n, templates int) {
	if n == 0 {
		return
	}
	all := make([]int64, n)
	for m := range all {
		all[m] = CMDBModuleID(m)
	}
	c.templates = []*CMDBProcessTemplate{
		{ID: 1, ModuleIDs: all, Fields: map[string]any{
			"bk_func_name": "nginx", "bk_process_name": "nginx", "proc_num": 2, "priority": 10, "timeout": 30,
			"work_path": "/data/nginx", "pid_file": "/data/nginx/run/nginx_${local_inst_id}.pid", "user": "root",
			"start_cmd": "./nginx -p ${local_inst_id + 8079}", "stop_cmd": "./nginx -s stop -p ${local_inst_id + 8079}",
			"reload_cmd": "./nginx -s reload -p ${local_inst_id + 8079}",
			// Its instances listen on 8080 and 8081 of the host's first inner IP (bind type "3"), over TCP ("1").
			"bind_info": []any{map[string]any{"row_id": 1, "ip": "3", "port": "8080-8081", "protocol": "1", "enable": true}},
		}},
		{ID: 2, ModuleIDs: all, Fields: map[string]any{
			"bk_func_name": "exporter", "bk_process_name": "agent", "proc_num": 1, "priority": 0, "bk_start_check_secs": 3,
			"work_path": "/data/exporter/${bk_module_name}", "pid_file": "/data/exporter/${bk_module_name}/exporter.pid", "user": "root",
			"start_cmd": "./start.sh", "stop_cmd": "./stop.sh", "face_stop_cmd": "./kill.sh",
		}},
		{ID: 3, ModuleIDs: all[:1], Fields: map[string]any{
			"bk_func_name": "legacy", "bk_process_name": "legacy", "proc_num": 1, "priority": -5,
			"work_path": "/data/legacy", "pid_file": "/data/legacy/legacy.pid", "user": "root",
			"start_cmd": "./run.sh --id ${inst_id}", "stop_cmd": "./stop.sh",
		}},
	}
	for k := 3; k <= templates; k++ {
		name := fmt.Sprintf("svc%d", k)
		c.templates = append(c.templates, &CMDBProcessTemplate{ID: int64(k + 1), ModuleIDs: all, Fields: map[string]any{
			"bk_func_name": name, "bk_process_name": name, "proc_num": 2, "priority": 5,
			"work_path": "/data/" + name, "pid_file": "/data/" + name + "/" + name + "_${local_inst_id}.pid", "user": "root",
			"start_cmd": "./start.sh ${local_inst_id}", "stop_cmd": "./stop.sh ${local_inst_id}",
		}})
	}
}

// AddHostToModule puts a host into a further module of the business, as
// transfer_host_module with is_increment = true does (bk-cmdb
// src/scene_server/host_server/service/module.go TransferHostModule;
// src/common/metadata/hostserver.go HostsModuleRelation.IsIncrement): the
// host gets a service instance there, with the processes of that module's
// templates (a process named as one it already runs is then twice on it).
func (c *CMDB) AddHostToModule(hostID, moduleID int64) error {
	c.hub.mu.Lock()
	defer c.hub.mu.Unlock()
	h := c.host(hostID)
	switch {
	case !c.hasTopoNode(false, moduleID):
		return fmt.Errorf("module %d does not exist", moduleID)
	case h == nil:
		return fmt.Errorf("host %d does not exist", hostID)
	case h.ModuleID != moduleID && !slices.Contains(h.AlsoModuleIDs, moduleID):
		h.AlsoModuleIDs = append(h.AlsoModuleIDs, moduleID)
	}
	return nil
}

// membership is a module a host is in, and the module's set.
type membership struct{ module, set int64 }

// memberships are the modules h is in, its first one first.
func (h *CMDBHost) memberships() []membership {
	out := []membership{{h.ModuleID, h.SetID}}
	for _, m := range h.AlsoModuleIDs {
		out = append(out, membership{m, moduleSet(m)})
	}
	return out
}

// ProcessTemplates lists the process templates.
func (c *CMDB) ProcessTemplates() []CMDBProcessTemplate {
	c.hub.mu.Lock()
	defer c.hub.mu.Unlock()
	out := make([]CMDBProcessTemplate, len(c.templates))
	for i, t := range c.templates {
		out[i] = *t
		out[i].Fields, out[i].ModuleIDs = cloneFields(t.Fields), slices.Clone(t.ModuleIDs)
	}
	return out
}

func cloneFields(f map[string]any) map[string]any {
	out := make(map[string]any, len(f))
	for k, v := range f {
		out[k] = v
	}
	return out
}

// EditProcessTemplate sets fields of a process template, as a CMDB user
// editing it does: its processes on every host take them at once (proc_num,
// a command, the alias). A null value unsets the field. An alias is any
// string, unique among the templates of a service template (bk-cmdb
// src/source_controller/coreservice/core/process/process_template.go
// processNameUniqueValidate, CCErrCoreServiceProcessNameDuplicated).
func (c *CMDB) EditProcessTemplate(id int64, fields map[string]any) error {
	c.hub.mu.Lock()
	defer c.hub.mu.Unlock()
	for _, t := range c.templates {
		if t.ID == id {
			for k, v := range fields {
				if !slices.Contains(cmdbProcessFields, k) || (k == "bk_process_name" && (v == nil || c.aliasTaken(t, v))) {
					return fmt.Errorf("%s = %v is not a process field value a template edit may set", k, v)
				}
				if v == nil {
					delete(t.Fields, k)
				} else {
					t.Fields[k] = v
				}
			}
			return nil
		}
	}
	return fmt.Errorf("no process template %d", id)
}

// aliasTaken says whether another template of a module of t has the alias.
func (c *CMDB) aliasTaken(t *CMDBProcessTemplate, alias any) bool {
	return slices.ContainsFunc(c.templates, func(o *CMDBProcessTemplate) bool {
		return o != t && o.Fields["bk_process_name"] == alias && slices.ContainsFunc(o.ModuleIDs, func(m int64) bool { return slices.Contains(t.ModuleIDs, m) })
	})
}

func (c *CMDB) serveEditProcessTemplate(w http.ResponseWriter, r *http.Request) {
	serveAdmin(w, r, func(req struct {
		ID     int64          `json:"id"`
		Fields map[string]any `json:"fields"`
	}) error {
		return c.EditProcessTemplate(req.ID, req.Fields)
	})
}

func (c *CMDB) serveProcessTemplates(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, c.ProcessTemplates())
}

// listProcRequest is what ListProcessRelatedInfoOption decodes: the
// documented top-level bk_set_ids, bk_module_ids, ids, bk_process_names and
// bk_process_ids, and process{...}, are not among its fields and are dropped
// by json.Unmarshal (rest.Contexts.DecodeInto), filtering nothing.
type listProcRequest struct {
	BizID int64 `json:"bk_biz_id"`
	Set   struct {
		IDs []int64 `json:"bk_set_ids"`
	} `json:"set"`
	Module struct {
		IDs []int64 `json:"bk_module_ids"`
	} `json:"module"`
	ServiceInstance struct {
		IDs []int64 `json:"ids"`
	} `json:"service_instance"`
	Filter json.RawMessage `json:"process_property_filter"`
	Fields []string        `json:"fields"`
	Page   struct {
		Start int    `json:"start"`
		Limit int    `json:"limit"`
		Sort  string `json:"sort"`
	} `json:"page"`
}

func (c *CMDB) serveProcessesGateway(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	biz, err := strconv.ParseInt(r.PathValue("biz"), 10, 64)
	c.hub.handleGateway(r, cmdbProcAPI, raw, func(string, []byte) (any, *apiError) {
		if err != nil {
			return nil, &apiError{codeCMDBPathID, "'bk_biz_id' data parameter verification does not pass"}
		}
		return c.listProcessRelatedInfo(raw, biz)
	}).write(w, r)
}

// codeCMDBPathID is CCErrCommParamsNeedInt (1199011): the path's bk_biz_id is no integer.
const codeCMDBPathID = 1199011

// cmdbProcRow is one process of a host in one of its modules, with the
// relations it is joined to.
type cmdbProcRow struct {
	id, templateID int64
	host           *CMDBHost
	in             membership
	tmpl           *CMDBProcessTemplate
}

// listProcessRelatedInfo answers one page; pathBiz is the gateway's
// bk_biz_id (0: ESB, from the body).
func (c *CMDB) listProcessRelatedInfo(raw []byte, pathBiz int64) (any, *apiError) {
	req, bad := decodeCMDB(raw, pathBiz, func(r *listProcRequest) *int64 { return &r.BizID })
	if bad != nil {
		return nil, bad
	}
	// ListProcessRelatedInfoOption.Validate: the page (BasePage.IsIllegal), then the filter.
	if l := req.Page.Limit; l <= 0 || (l > cmdbMaxLimit && l != cmdbNoLimit) || req.Page.Start < 0 {
		return nil, cmdbParamsInvalid("page.limit")
	}
	filter, err := parseCMDBFilter(req.Filter, "process_property_filter")
	if err != nil {
		return nil, err
	}
	var rows []cmdbProcRow
	for _, h := range c.hosts {
		if h.BizID != req.BizID {
			continue
		}
		for k, in := range h.memberships() {
			if !inIDs(req.Set.IDs, in.set) || !inIDs(req.Module.IDs, in.module) || !inIDs(req.ServiceInstance.IDs, serviceInstanceID(h, in.module)) {
				continue
			}
			more, err := hostProcRows(h, in, k, c.templates, filter)
			if err != nil {
				return nil, err
			}
			rows = append(rows, more...)
		}
	}
	sortProcRows(rows, req.Page.Sort)
	return cmdbPage(rows, req.Page.Start, req.Page.Limit, func(row cmdbProcRow) any { return row.related(req.Fields) }), nil
}

// hostProcRows are the processes of h's service instance in its k-th
// module (in) that filter keeps: one per template of the module.
func hostProcRows(h *CMDBHost, in membership, k int, templates []*CMDBProcessTemplate, filter *cmdbRule) ([]cmdbProcRow, *apiError) {
	var rows []cmdbProcRow
	for _, t := range templates {
		if !slices.Contains(t.ModuleIDs, in.module) {
			continue
		}
		row := cmdbProcRow{id: int64(k)*1_000_000_000 + t.ID*100000 + h.ID, templateID: t.ID, host: h, in: in, tmpl: t}
		if filter != nil {
			doc := row.process(nil)
			ok, err := filter.match(func(name string) (any, bool) { v, ok := doc[name]; return v, ok })
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// sortProcRows orders rows by a process field, "-" for descending, ties by
// bk_process_id; the default is bk_process_id (the process query's sort).
func sortProcRows(rows []cmdbProcRow, sort string) {
	field, desc := strings.CutPrefix(cmp.Or(sort, "bk_process_id"), "-")
	slices.SortStableFunc(rows, func(a, b cmdbProcRow) int {
		var c int
		if field == "bk_process_id" {
			c = cmp.Compare(a.id, b.id)
		} else {
			c = cmp.Compare(fmt.Sprint(a.process(nil)[field]), fmt.Sprint(b.process(nil)[field]))
		}
		if desc {
			c = -c
		}
		return cmp.Or(c, cmp.Compare(a.id, b.id))
	})
}

// serviceInstanceID is the id of h's service instance in module.
func serviceInstanceID(h *CMDBHost, module int64) int64 { return module*100000 + h.ID }

// process is the stored process document: every field, null when unset, or
// only fields (plus bk_process_id, bk_process_name and bk_func_id, which
// the server appends) when given.
func (row cmdbProcRow) process(fields []string) map[string]any {
	doc := map[string]any{"bk_process_id": row.id, "bk_biz_id": row.host.BizID}
	for _, f := range cmdbProcessFields {
		doc[f] = row.tmpl.Fields[f]
	}
	doc["bind_info"] = row.bindInfo()
	if len(fields) == 0 {
		return doc
	}
	out := map[string]any{}
	for _, f := range append(slices.Clone(fields), "bk_process_id", "bk_process_name", "bk_func_id") {
		if v, ok := doc[f]; ok {
			out[f] = v
		}
	}
	return out
}

// related is the row as the reply holds it (ListProcessRelatedInfoResult).
func (row cmdbProcRow) related(fields []string) map[string]any {
	h, in := row.host, row.in
	set, module := setDoc(in.set), moduleDoc(in.module)
	return map[string]any{
		"set":    map[string]any{"bk_set_id": in.set, "bk_set_name": set["bk_set_name"], "bk_set_env": set["bk_set_env"]},
		"module": map[string]any{"bk_module_id": in.module, "bk_module_name": module["bk_module_name"]},
		"host": map[string]any{"bk_host_id": h.ID, "bk_cloud_id": h.CloudID, "bk_host_innerip": h.InnerIP,
			"bk_host_innerip_v6": h.InnerIPv6, "bk_addressing": "static", "bk_agent_id": h.AgentID},
		"service_instance": map[string]any{"id": serviceInstanceID(h, in.module), "name": fmt.Sprintf("%s_mod-%d", cmp.Or(h.firstIPv4(), h.InnerIPv6), in.module)},
		"process_template": map[string]any{"id": row.templateID},
		"process":          row.process(fields),
	}
}

// bindInfo is the process's bind_info as CMDB makes it from its template's
// rows (bk-cmdb src/common/metadata/process_bind_info.go
// ProcPropertyBindInfo.NewProcBindInfo): each row's template_row_id, port,
// protocol and enable (false when the template leaves it null), and ip the
// address its bind type names on the host (src/common/metadata/process.go
// SocketBindType.IP: "1" 127.0.0.1, "2" 0.0.0.0, "3" the first inner IPv4,
// "5" ::1, "6" ::, "7" the first inner IPv6; "4" and "8", outer addresses,
// are empty: the simulator's hosts have none). A template row is
// {row_id, ip, port, protocol, enable}; null without rows.
func (row cmdbProcRow) bindInfo() any {
	rows, _ := row.tmpl.Fields["bind_info"].([]any)
	if rows == nil {
		return nil
	}
	out := make([]map[string]any, 0, len(rows))
	for _, r := range rows {
		t, _ := r.(map[string]any)
		enable, _ := t["enable"].(bool)
		out = append(out, map[string]any{
			"template_row_id": t["row_id"], "ip": row.host.bindIP(fmt.Sprint(t["ip"])), "port": t["port"], "protocol": t["protocol"], "enable": enable,
		})
	}
	return out
}

// bindIP is the address bind type kind names on h (SocketBindType.IP).
func (h *CMDBHost) bindIP(kind string) string {
	switch kind {
	case "1":
		return "127.0.0.1"
	case "2":
		return "0.0.0.0"
	case "3":
		return h.firstIPv4()
	case "5":
		return "::1"
	case "6":
		return "::"
	case "7":
		first, _, _ := strings.Cut(h.InnerIPv6, ",")
		return first
	}
	return ""
}
