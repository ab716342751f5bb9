package simulator

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"
)

// Process is the state of one process on one host.
type Process struct {
	Namespace     string            `json:"namespace"`
	Name          string            `json:"name"`
	Labels        map[string]string `json:"labels,omitempty"` // each value as text (see labels)
	IP            string            `json:"ip"`
	BkCloudID     int64             `json:"bk_cloud_id"`
	BkSupplierID  int64             `json:"bk_supplier_id"`
	ProcName      string            `json:"proc_name"`
	SetupPath     string            `json:"setup_path"`
	Spec          json.RawMessage   `json:"spec"` // the registered spec, or the JOB definition
	Hosted        bool              `json:"hosted"`
	Running       bool              `json:"running"`
	PID           int64             `json:"pid"`
	Version       string            `json:"version"`
	RegisterTime  int64             `json:"register_time"`
	LastStartTime int64             `json:"last_start_time"`
	Restarts      int               `json:"restarts"`
	Reloads       int               `json:"reloads"`
	AgentID       string            `json:"agent_id,omitempty"` // the agent address it was created through (gateway)
	labels        labels            // as sent, and as status reads answer them
}

type procKey struct {
	namespace, name string
	cloud           int64
	ip              string
}

func keyOf(namespace, name string, cloud int64, ip string) procKey {
	if a, err := netip.ParseAddr(ip); err == nil {
		ip = a.String()
	}
	return procKey{namespace, name, cloud, ip}
}

// book is an endpoint's processes, which tests read and drift under the
// hub's lock. For JOB's, namespace is the scope and name the index
// (value_key, else {setup_path}/{proc_name}).
type book struct {
	hub   *Server
	procs processes
}

// Processes returns a copy of every process of the endpoint, sorted.
func (b *book) Processes() []Process {
	b.hub.mu.Lock()
	defer b.hub.mu.Unlock()
	return b.procs.list()
}

// Process returns the state of one process on one host.
func (b *book) Process(namespace, name string, cloud int64, ip string) (Process, bool) {
	b.hub.mu.Lock()
	defer b.hub.mu.Unlock()
	return b.procs.get(keyOf(namespace, name, cloud, ip))
}

// Drift applies an out-of-band change to one process on one host.
func (b *book) Drift(action, namespace, name string, cloud int64, ip string) error {
	b.hub.mu.Lock()
	defer b.hub.mu.Unlock()
	return b.procs.drift(action, keyOf(namespace, name, cloud, ip))
}

// processes are the processes an endpoint keeps, by namespace, name and host
// (JOB's: by scope and index).
type processes map[procKey]*Process

// list returns a copy of every process, sorted.
func (ps processes) list() []Process {
	out := make([]Process, 0, len(ps))
	for _, p := range ps {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Namespace+a.Name != b.Namespace+b.Name {
			return a.Namespace+a.Name < b.Namespace+b.Name
		}
		if a.BkCloudID != b.BkCloudID {
			return a.BkCloudID < b.BkCloudID
		}
		return a.IP < b.IP
	})
	return out
}

// get returns a copy of one process.
func (ps processes) get(k procKey) (Process, bool) {
	p, ok := ps[k]
	if !ok {
		return Process{}, false
	}
	return *p, true
}

// Drift actions: changes made behind the provider's back.
const (
	DriftStop       = "stop"       // someone stopped the process (GSE unhosts it too)
	DriftUnhost     = "unhost"     // someone unregistered hosting
	DriftUnregister = "unregister" // someone unregistered the process
)

// drift applies an out-of-band change to one process.
func (ps processes) drift(action string, k procKey) error {
	p, ok := ps[k]
	if !ok {
		return fmt.Errorf("%s/%s is not registered on %d:%s", k.namespace, k.name, k.cloud, k.ip)
	}
	switch action {
	case DriftStop:
		p.Running, p.Hosted, p.PID = false, false, -1
	case DriftUnhost:
		p.Hosted = false
	case DriftUnregister:
		delete(ps, k)
	default:
		return fmt.Errorf("unknown drift action %q (want %s, %s or %s)", action, DriftStop, DriftUnhost, DriftUnregister)
	}
	return nil
}
