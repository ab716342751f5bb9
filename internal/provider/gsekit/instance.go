package gsekit

import (
	"encoding/json"
	"fmt"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// GSEKit's defaults where CMDB leaves a field unset (gsekit
// DEFAULT_START_CHECK_SECS and DEFAULT_OP_TIMEOUT; bk-bscp sync_gse.go).
const (
	StartCheckSecs = 5
	OpTimeout      = 60
)

// Host is a CMDB host as its instances run on it: the host, the address it
// is reached at, and why it cannot be ("" when it can).
type Host struct {
	CMDB     gse.CMDBHost
	IP       string
	Unusable string
}

// Instance is one process instance on one host.
type Instance struct {
	Row  *gse.ProcessRow
	N    int64 // local_inst_id
	Name string
	Spec *gse.Spec
	Host *Host
	// Priority is CMDB's priority of the process, 0 when unset as GSEKit
	// takes it (gsekit apps/gsekit/adapters/base/pipeline_managers/base.py
	// generate_to_be_created_data): instances of a name that differ in it
	// are grouped apart.
	Priority int64
	key      string // the spec and priority, encoded: instances of a name with the same key share a group
}

// origin is where an instance comes from, in the order groups are ranked.
func (in *Instance) origin() [4]int64 {
	r := in.Row
	return [4]int64{r.ProcessTemplate.ID, r.Module.ID, r.Set.ID, r.ServiceInstance.ID}
}

// InstanceName is GSEKit's GSE process name of instance n of the process
// alias: {bk_process_name}_{local_inst_id}.
func InstanceName(alias string, n int64) string { return fmt.Sprintf("%s_%d", alias, n) }

// InstanceCount is how many instances of p run on each host: proc_num, or 1.
func InstanceCount(p gse.CMDBProcess) int64 {
	if p.ProcNum != nil && *p.ProcNum > 0 {
		return *p.ProcNum
	}
	return 1
}

// instanceRules are what an instance is held to beyond its row: the check
// of the resource it feeds, and the keys GSEKit refuses (duplicates).
type instanceRules struct {
	refuse Refuse
	dups   map[string][]int64
}

// newInstance is instance n of r on its host (hosts holds the rows' hosts
// by id), or why it is left out.
func (rules instanceRules) newInstance(r *gse.ProcessRow, n int64, hosts map[int64]*Host) (*Instance, SkipKind, string) {
	h, ok := hosts[r.Host.ID]
	if !ok {
		return nil, SkipHost, fmt.Sprintf("bk_host_id %d is not among the business's hosts (list_biz_hosts)", r.Host.ID)
	}
	p := r.Process
	if k := uniqKey(h, p.Name, n); rules.dups[k] != nil {
		return nil, SkipDuplicate, duplicateReason(k, rules.dups[k])
	}
	if h.Unusable != "" {
		return nil, SkipHost, "the host has " + h.Unusable
	}
	if r.Set.ID == 0 {
		return nil, SkipField, "its set was not found (GSEKit drops such rows too)"
	}
	s, kind, reason := instanceSpec(r, n)
	if reason != "" {
		return nil, kind, reason
	}
	in := &Instance{Row: r, N: n, Name: InstanceName(p.Name, n), Host: h, Spec: s}
	if p.Priority != nil {
		in.Priority = *p.Priority
	}
	if reason := refused(rules.refuse, p, in.Name, s); reason != "" {
		return nil, SkipField, reason
	}
	key, _ := json.Marshal(struct {
		S *gse.Spec
		P int64
	}{in.Spec, in.Priority})
	in.key = string(key)
	return in, 0, ""
}

// instanceSpec is the spec GSEKit sends for instance n of r, its paths and
// commands rendered, or why there is none. A field GSEKit requires for a
// start and a hosting (OpCommand; work_path, pid_file and user for every
// operation) must be set: every group is started or hosted.
func instanceSpec(r *gse.ProcessRow, n int64) (*gse.Spec, SkipKind, string) {
	p := r.Process
	ctx := NewRenderContext(r.Set.Name, r.Module.Name, p.Name, n)
	fields := []struct {
		name     string
		value    *string
		required bool
	}{{name: "work_path", value: p.WorkPath, required: true}, {name: "pid_file", value: p.PidFile, required: true},
		{name: "start_cmd", value: p.StartCmd, required: true}, {name: "stop_cmd", value: p.StopCmd},
		{name: "restart_cmd", value: p.RestartCmd}, {name: "reload_cmd", value: p.ReloadCmd}, {name: "face_stop_cmd", value: p.FaceStopCmd}}
	if p.User == nil || *p.User == "" {
		return nil, SkipField, "user is empty: GSEKit operates no process without one (OP_TYPE_PROCESS_ATTR_MAP)"
	}
	rendered := make([]string, len(fields))
	for i, f := range fields {
		v := deref(f.value)
		if v == "" {
			if f.required {
				return nil, SkipField, f.name + " is empty: GSEKit neither starts nor hosts a process without one (OP_TYPE_PROCESS_ATTR_MAP)"
			}
			continue
		}
		s, err := Render(v, ctx)
		if err != nil {
			return nil, SkipRender, fmt.Sprintf("%s holds %v", f.name, err)
		}
		rendered[i] = s
	}
	return &gse.Spec{
		Identity: gse.Identity{ProcName: p.FuncName, SetupPath: rendered[0], PidPath: rendered[1], User: *p.User},
		Control:  gse.Control{StartCmd: rendered[2], StopCmd: rendered[3], RestartCmd: rendered[4], ReloadCmd: rendered[5], KillCmd: rendered[6]},
		// No resource block in GSEKit's items: no limits, zeros where one is required.
		Resource:      &gse.Resource{},
		MonitorPolicy: MonitorPolicy(p),
	}, 0, ""
}

// MonitorPolicy is the monitor policy GSEKit sends for p: resident, with
// CMDB's start check and timeout where set, else GSEKit's defaults.
func MonitorPolicy(p gse.CMDBProcess) *gse.MonitorPolicy {
	startCheck, opTimeout := int64(StartCheckSecs), int64(OpTimeout)
	if p.StartCheckSecs != nil && *p.StartCheckSecs > 0 {
		startCheck = *p.StartCheckSecs
	}
	if p.Timeout != nil && *p.Timeout > 0 {
		opTimeout = *p.Timeout
	}
	return &gse.MonitorPolicy{AutoType: 1, StartCheckSecs: &startCheck, OpTimeout: &opTimeout}
}
