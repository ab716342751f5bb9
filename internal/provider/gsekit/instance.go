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
	// Priority is CMDB's priority of the process (nil when unset):
	// instances of a name that differ in it are grouped apart.
	Priority *int64
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

// newInstance is instance n of r on its host (hosts holds the rows' hosts
// by id), or why it is left out.
func newInstance(r *gse.ProcessRow, n int64, hosts map[int64]*Host) (*Instance, string) {
	h, ok := hosts[r.Host.ID]
	if !ok {
		return nil, fmt.Sprintf("bk_host_id %d is not among the business's hosts (list_biz_hosts)", r.Host.ID)
	}
	if h.Unusable != "" {
		return nil, "the host has " + h.Unusable
	}
	if r.Set.ID == 0 {
		return nil, "its set was not found (GSEKit drops such rows too)"
	}
	s, reason := instanceSpec(r, n)
	if reason != "" {
		return nil, reason
	}
	p := r.Process
	in := &Instance{Row: r, N: n, Name: InstanceName(p.Name, n), Priority: p.Priority, Host: h, Spec: s}
	key, _ := json.Marshal(struct {
		S *gse.Spec
		P *int64
	}{in.Spec, in.Priority})
	in.key = string(key)
	return in, ""
}

// instanceSpec is the spec GSEKit sends for instance n of r, its paths and
// commands rendered, or why there is none.
func instanceSpec(r *gse.ProcessRow, n int64) (*gse.Spec, string) {
	p := r.Process
	ctx := NewRenderContext(r.Set.Name, r.Module.Name, p.Name, n)
	fields := []struct {
		name     string
		value    *string
		required bool
	}{{name: "work_path", value: p.WorkPath, required: true}, {name: "pid_file", value: p.PidFile, required: true},
		{name: "start_cmd", value: p.StartCmd, required: true}, {name: "stop_cmd", value: p.StopCmd, required: true},
		{name: "restart_cmd", value: p.RestartCmd}, {name: "reload_cmd", value: p.ReloadCmd}, {name: "face_stop_cmd", value: p.FaceStopCmd}}
	rendered := make([]string, len(fields))
	for i, f := range fields {
		v := ""
		if f.value != nil {
			v = *f.value
		}
		if v == "" {
			if f.required {
				return nil, f.name + " is empty (GSEKit refuses to operate such a process too)"
			}
			continue
		}
		s, err := Render(v, ctx)
		if err != nil {
			return nil, fmt.Sprintf("%s holds %v", f.name, err)
		}
		rendered[i] = s
	}
	if p.User == nil || *p.User == "" {
		return nil, "user is empty (GSEKit refuses to operate such a process too)"
	}
	return &gse.Spec{
		Identity: gse.Identity{ProcName: p.FuncName, SetupPath: rendered[0], PidPath: rendered[1], User: *p.User},
		Control:  gse.Control{StartCmd: rendered[2], StopCmd: rendered[3], RestartCmd: rendered[4], ReloadCmd: rendered[5], KillCmd: rendered[6]},
		// No resource block in GSEKit's items: no limits, zeros where one is required.
		Resource:      &gse.Resource{},
		MonitorPolicy: MonitorPolicy(p),
	}, ""
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
