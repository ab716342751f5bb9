package gse

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strconv"
)

// Meta identifies a process: namespace and name, plus free-form labels.
// Labels nil are not sent; empty, they are sent as {}, which clears them
// where GSE keeps the labels a request leaves out.
type Meta struct {
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Labels    map[string]string `json:"labels,omitzero"`
}

func (m Meta) String() string { return m.Namespace + "/" + m.Name }

// UnmarshalJSON reads a meta as GSE reports it. GSE documents label values
// as strings, but GSEKit registers bk_process_id as an integer
// (bk-process-config-manager apps/gsekit/pipeline_plugins/components/collections/gse.py,
// BulkGseOperateProcessService._execute): a number is read as its JSON text
// (42), so one such label does not fail the read of every process.
func (m *Meta) UnmarshalJSON(data []byte) error {
	var w struct {
		Namespace string                `json:"namespace"`
		Name      string                `json:"name"`
		Labels    map[string]flexString `json:"labels"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*m = Meta{Namespace: w.Namespace, Name: w.Name}
	if w.Labels != nil {
		m.Labels = make(map[string]string, len(w.Labels))
		for k, v := range w.Labels {
			m.Labels[k] = string(v)
		}
	}
	return nil
}

// Host is a GSE host in v1 addressing. The _v2 APIs drop BkSupplierID on the
// wire. AgentID (GSE 2.0, gateway mode only) addresses the host instead of
// its IP; it never travels in ESB bodies.
type Host struct {
	IP           string `json:"ip"`
	BkCloudID    int64  `json:"bk_cloud_id"`
	BkSupplierID int64  `json:"bk_supplier_id"`
	AgentID      string `json:"-"`
}

func (h Host) String() string {
	switch {
	case h.AgentID == "":
		return fmt.Sprintf("%s (bk_cloud_id %d)", h.IP, h.BkCloudID)
	case h.IP == "":
		return "agent_id " + h.AgentID
	}
	return fmt.Sprintf("%s (bk_cloud_id %d, agent_id %s)", h.IP, h.BkCloudID, h.AgentID)
}

// Key is the host's identity for matching server data (ipKey); for a host
// given by agent id, that id's agentKey ({bk_cloud_id}:{ip} the same as the
// host by ip, a hex id in lower case). The provider compares hosts by it alone.
func (h Host) Key() string {
	if h.AgentID != "" {
		return agentKey(h.AgentID)
	}
	return ipKey(h.BkCloudID, h.IP)
}

// ipKey is the identity of an address in a cloud area, the one key of every
// wire form that names a host by bk_cloud_id and ip: the cloud id and the IP
// in canonical form, so "2001:DB8::1", "2001:db8::1" and "::ffff:10.0.0.1"
// beside "10.0.0.1" are one host each. A zone names a link of the sender, not
// a host, so it is not part of the key (the provider refuses zones at plan time).
func ipKey(cloud int64, ip string) string {
	return strconv.FormatInt(cloud, 10) + ":" + canonicalIP(ip)
}

// canonicalIP returns ip in canonical form (unmapped, without zone), or ip
// unchanged when it does not parse.
func canonicalIP(ip string) string {
	if a, err := netip.ParseAddr(ip); err == nil {
		return a.Unmap().WithZone("").String()
	}
	return ip
}

type hostV2 struct {
	IP        string `json:"ip"`
	BkCloudID int64  `json:"bk_cloud_id"`
}

func toV2(hosts []Host) []hostV2 {
	out := make([]hostV2, len(hosts))
	for i, h := range hosts {
		out[i] = hostV2{IP: h.IP, BkCloudID: h.BkCloudID}
	}
	return out
}

// keyV1 is the result-map key of the v1 APIs: bk_cloud_id:bk_supplier_id:ip:namespace:name.
func keyV1(h Host, m Meta) string {
	return fmt.Sprintf("%d:%d:%s:%s:%s", h.BkCloudID, h.BkSupplierID, h.IP, m.Namespace, m.Name)
}

// keyV2 is the result-map key of the _v2 APIs: bk_cloud_id:ip:namespace:name.
func keyV2(h Host, m Meta) string {
	return fmt.Sprintf("%d:%s:%s:%s", h.BkCloudID, h.IP, m.Namespace, m.Name)
}

// Spec is a process definition (register_proc_info, operate_proc_v2).
type Spec struct {
	Identity         Identity          `json:"identity"`
	Control          Control           `json:"control"`
	Resource         *Resource         `json:"resource,omitempty"`
	MonitorPolicy    *MonitorPolicy    `json:"monitor_policy,omitempty"`
	WarnReportPolicy *WarnReportPolicy `json:"warn_report_policy,omitempty"`
	Configmap        []ConfigMap       `json:"configmap,omitempty"`
}

// Identity says what the process is and where it lives on the host.
type Identity struct {
	IndexKey   string `json:"index_key,omitempty"`
	ProcName   string `json:"proc_name"`
	SetupPath  string `json:"setup_path"`
	PidPath    string `json:"pid_path"`
	ConfigPath string `json:"config_path,omitempty"`
	LogPath    string `json:"log_path,omitempty"`
	User       string `json:"user"`
}

// Control holds the commands the agent runs for each operation.
type Control struct {
	StartCmd   string `json:"start_cmd,omitempty"`
	StopCmd    string `json:"stop_cmd,omitempty"`
	RestartCmd string `json:"restart_cmd,omitempty"`
	ReloadCmd  string `json:"reload_cmd,omitempty"`
	KillCmd    string `json:"kill_cmd,omitempty"`
	VersionCmd string `json:"version_cmd,omitempty"`
	HealthCmd  string `json:"health_cmd,omitempty"`
}

// Resource holds the limits beyond which the agent kills a hosted process.
type Resource struct {
	CPU  float64 `json:"cpu"`
	Mem  float64 `json:"mem"`
	Fd   *int64  `json:"fd,omitempty"`
	Disk *int64  `json:"disk,omitempty"`
	Net  *int64  `json:"net,omitempty"`
}

// limits reports whether r sets any limit (a zero is none).
func (r *Resource) limits() bool {
	nonZero := func(v *int64) bool { return v != nil && *v != 0 }
	return r != nil && (r.CPU != 0 || r.Mem != 0 || nonZero(r.Fd) || nonZero(r.Disk) || nonZero(r.Net))
}

// v1 is s as register_proc_info and update_proc_info take it through ESB:
// their spec.resource, cpu and mem are required (legacy-bk-paas
// paas2/esb/components/confapis/gse/apidocs/zh_hans/register_proc_info.md
// and update_proc_info.md), so a spec without limits carries zeros.
func (s *Spec) v1() *Spec {
	if s == nil || s.Resource != nil {
		return s
	}
	out := *s
	out.Resource = &Resource{}
	return &out
}

// AutoTypeOneShot is the auto_type of a process run once (单次执行进程):
// 0 periodic, 1 resident, 2 one-shot (bk-nodeman
// apps/node_man/constants.py GseAutoType.SINGLE_EXECUTION).
const AutoTypeOneShot = 2

// OneShot reports whether s makes the process a one-shot: it exits by design,
// so a start or restart that finds it gone has done its work.
func (s *Spec) OneShot() bool {
	return s != nil && s.MonitorPolicy != nil && s.MonitorPolicy.AutoType == AutoTypeOneShot
}

// MonitorPolicy is monitor_policy in v1 and alive_monitor_policy in v2.
type MonitorPolicy struct {
	AutoType       int64  `json:"auto_type"`
	StartCheckSecs *int64 `json:"start_check_secs,omitempty"`
	StopCheckSecs  *int64 `json:"stop_check_secs,omitempty"`
	StartRetries   *int64 `json:"start_retries,omitempty"`
	StartInterval  *int64 `json:"start_interval,omitempty"`
	CrontabRule    string `json:"crontab_rule,omitempty"`
	OpTimeout      *int64 `json:"op_timeout,omitempty"`
}

// WarnReportPolicy names the alarm raised for the process.
type WarnReportPolicy struct {
	ReportID int64 `json:"report_id"`
}

// ConfigMap is one configuration file of the process.
type ConfigMap struct {
	Path string `json:"path,omitempty"`
	MD5  string `json:"md5,omitempty"`
}

// specV2 is the operate_proc_v2 (and operate_proc_multi) shape of a spec
// through ESB: the monitor policy travels as alive_monitor_policy and there
// is no resource block, which the API does not define (legacy-bk-paas
// paas2/esb/components/confapis/gse/apidocs/zh_hans/operate_proc_v2.md) and
// GSEKit does not send (bk-process-config-manager apps/adapters/api/gse/v1.py).
type specV2 struct {
	Identity           Identity          `json:"identity"`
	Control            Control           `json:"control"`
	AliveMonitorPolicy *MonitorPolicy    `json:"alive_monitor_policy,omitempty"`
	WarnReportPolicy   *WarnReportPolicy `json:"warn_report_policy,omitempty"`
	Configmap          []ConfigMap       `json:"configmap,omitempty"`
}

func (s *Spec) v2() *specV2 {
	if s == nil {
		return nil
	}
	return &specV2{
		Identity: s.Identity, Control: s.Control, AliveMonitorPolicy: s.MonitorPolicy,
		WarnReportPolicy: s.WarnReportPolicy, Configmap: s.Configmap,
	}
}

// HostResult is one host's entry in a per-host result map.
type HostResult struct {
	ErrorCode int    `json:"error_code"`
	ErrorMsg  string `json:"error_msg"`
	Content   string `json:"content"`
}

// Process states in status entries (flag and status).
const (
	StateUnregistered = 0
	StateRunning      = 1
	StateStopped      = 2
)

// ProcStatus is one entry of get_proc_status(_v2).proc_infos (and
// sync_proc_status). GSE 2.0 puts the entry's agent id at its top level, not
// in host (bk-bscp internal/components/gse/type.go ProcInfo and SyncProcInfo;
// bk-nodeman apps/adapters/api/gse/v2.py _list_proc_state copies it into host
// itself before reading it).
type ProcStatus struct {
	Meta          Meta       `json:"meta"`
	Host          StatusHost `json:"host"`
	BkAgentID     string     `json:"bk_agent_id,omitempty"` // GSE 2.0 only
	Flag          int        `json:"flag"`
	Status        int        `json:"status"`
	IsAuto        bool       `json:"isauto"`
	PID           int64      `json:"pid"`
	Version       string     `json:"version"`
	RegisterTime  int64      `json:"register_time"`
	LastStartTime int64      `json:"last_start_time"`
	ReportTime    int64      `json:"report_time"`
	CPUUsage      float64    `json:"cpu_usage"`
	MemUsage      float64    `json:"mem_usage"`
	Fd            int64      `json:"fd"`
	Disk          int64      `json:"disk"`
	Net           int64      `json:"net"`
}

// StatusHost is the host of a status entry.
type StatusHost struct {
	IP           string `json:"ip"`
	BkCloudID    int64  `json:"bk_cloud_id"`
	BkSupplierID int64  `json:"bk_supplier_id,omitempty"`

	// sentAs, through the gateway, is the address of the entry's host: the
	// one sent for it (gatewayStatus), or the entry's agent id (sync_proc_status).
	sentAs string
}

// Key matches Host.Key: the ip and cloud id of the entry, or through the
// gateway the address of its host (sentAs).
func (h StatusHost) Key() string {
	if h.sentAs != "" {
		return agentKey(h.sentAs)
	}
	return Host{IP: h.IP, BkCloudID: h.BkCloudID}.Key()
}

// Target is the host of the entry as requests address it: through the
// gateway by its agent id (also when the entry carries an ip), else by ip and
// cloud id. Its Key equals e.Host.Key().
func (e ProcStatus) Target() Host {
	return Host{IP: e.Host.IP, BkCloudID: e.Host.BkCloudID, BkSupplierID: e.Host.BkSupplierID, AgentID: e.Host.sentAs}
}
