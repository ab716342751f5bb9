// Package simulator serves the GSE process-management wire contract in memory:
// register/update/unregister, asynchronous operations with realistic task
// polling, status reads, and knobs for tests (task latency, injected faults,
// out-of-band changes). It is independent of the client: it has its own wire
// types, so a client that sends the wrong JSON fails against it.
package simulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"slices"
	"sort"
	"sync"
	"time"
)

// Options configure a Server.
type Options struct {
	// AppCode and AppSecret, when set, must be the credentials of every request.
	AppCode, AppSecret string
	// TaskPolls sets how many polls a task takes before it answers; the zero value means {2, 2}.
	TaskPolls TaskPolls
	// TaskLatency, when set, replaces TaskPolls with time: a task is unqueued
	// (1000115) for its first third, pending (115) until it ends, then answers.
	TaskLatency time.Duration
	// InstantTasks makes every task answer at its first poll (TaskPolls and
	// TaskLatency are ignored): GSE at its fastest, for benchmarks.
	InstantTasks bool
	// TenantID, when set, must be every gateway request's X-Bk-Tenant-Id.
	TenantID string
	// AccessToken, when set, is accepted as the gateway credential (alone).
	AccessToken string
	// RecordRequests keeps every request (path, headers, body) for Requests:
	// tests assert where credentials travel. Off by default: benchmarks send
	// many large bodies.
	RecordRequests bool
	// CMDBHosts is how many hosts the generated CMDB business (CMDBBizID) holds (cmdb.go).
	CMDBHosts int
	// CMDBProcessTemplates is how many process templates every module has
	// (at least nginx and agent; cmdb_process.go).
	CMDBProcessTemplates int
	// GatewayBodyLimit is the largest request body the gateway takes
	// (bk-request-body-limit; 1641301 beyond); 0 is 32 MiB.
	GatewayBodyLimit int
	// VerifiedUsersOnly refuses bk_username without bk_token, as ESB does
	// for an app off its skip_user_auth whitelist and the gateway for one
	// it does not exempt from user verification. Off, the app is on both lists.
	VerifiedUsersOnly bool
}

// RequestRecord is one request as received.
type RequestRecord struct {
	Path   string
	Header http.Header
	Body   []byte
}

// TaskPolls is the latency of a task, counted in polls: first Unqueued polls
// answer 1000115, then Pending polls leave the hosts out (the first) or at 115,
// then the results come.
type TaskPolls struct{ Unqueued, Pending int }

// Server is the simulator. Use it as an http.Handler.
type Server struct {
	mu         sync.Mutex
	opts       Options
	procs      map[procKey]*Process
	jobProcs   map[procKey]*Process // JOB processes: namespace is the scope, name the index (value_key or path)
	tasks      map[string]*task
	faults     []*Fault
	hostFaults []*HostFault
	calls      map[string]int
	taskLog    []TaskRecord
	openTasks  int // tasks submitted and not yet polled to completion
	requests   []RequestRecord
	job        jobKnobs     // JOB-only knobs, in job.go
	gw         gatewayKnobs // GSE 2.0 gateway knobs, in gateway.go
	cmdb       []*CMDBHost  // the CMDB business, by bk_host_id (cmdb.go)
	// cmdbTemplates are the process templates of the business's modules (cmdb_process.go).
	cmdbTemplates []*CMDBProcessTemplate
	jobv3         jobv3 // JOB's v3 file and script APIs (jobv3.go)
	cmdbChurn     int   // list_biz_hosts requests left that change the fleet first
	quota         quota // the app's rate limit and the APIs missing, in quota.go
	seq           int
	mux           *http.ServeMux
}

// Process is the state of one process on one host.
type Process struct {
	Namespace     string            `json:"namespace"`
	Name          string            `json:"name"`
	Labels        map[string]string `json:"labels,omitempty"`
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

// New returns an empty simulator.
func New(opts Options) *Server {
	switch {
	case opts.InstantTasks:
		opts.TaskPolls, opts.TaskLatency = TaskPolls{}, 0
	case opts.TaskPolls == (TaskPolls{}) && opts.TaskLatency == 0:
		opts.TaskPolls = TaskPolls{Unqueued: 2, Pending: 2}
	}
	s := &Server{opts: opts, procs: map[procKey]*Process{}, jobProcs: map[procKey]*Process{}, tasks: map[string]*task{}, calls: map[string]int{}}
	s.jobv3 = jobv3{files: map[int64]map[string][]byte{}, down: map[int64]bool{}, jobs: map[int64]*jobInstance{}}
	s.gw = gatewayKnobs{agents: map[string]agent{}, ofHost: map[procKey]string{}, states: map[string]int{}}
	s.generateCMDB(opts.CMDBHosts)
	s.mux = http.NewServeMux()
	for p, h := range map[string]http.HandlerFunc{
		"/api/c/compapi/v2/gse/{api}":                          s.serveGSE,
		"/api/v2/proc/{api}":                                   s.serveGateway,
		"/api/v2/cluster/{api}":                                s.serveGateway,
		"/api/c/compapi/v2/cc/{api}":                           s.serveCMDB,
		"/api/c/compapi/v2/jobv3/{api}":                        s.serveJOBv3,
		"/api/v3/{api}":                                        s.serveJOBv3Gateway,
		"/api/v3/hosts/app/{biz}/list_hosts":                   s.serveCMDBGateway,
		"/api/v3/findmany/proc/process_related_info/biz/{biz}": s.serveCMDBProcessGateway,
	} {
		s.mux.HandleFunc("POST "+p, h)
		s.mux.HandleFunc("POST "+p+"/{$}", h) // Python callers add a slash, Go callers do not
	}
	s.mux.HandleFunc("POST /api/c/compapi/v2/job/{api}", s.serveJOB)
	s.mux.HandleFunc("POST /api/c/compapi/v2/job/{api}/{$}", s.serveJOB)
	s.mux.HandleFunc("POST /_sim/drift", s.serveDrift)
	s.mux.HandleFunc("GET /_sim/processes", s.serveProcesses)
	s.mux.HandleFunc("GET /_sim/calls", s.serveCalls)
	s.mux.HandleFunc("GET /_sim/tasks", s.serveTasks)
	s.mux.HandleFunc("GET /_sim/cmdb/hosts", s.serveCMDBHosts)
	s.mux.HandleFunc("POST /_sim/cmdb/move", s.serveMoveHost)
	s.mux.HandleFunc("GET /_sim/cmdb/process_templates", s.serveProcessTemplates)
	s.mux.HandleFunc("POST /_sim/cmdb/process_template", s.serveEditProcessTemplate)
	s.mux.HandleFunc("GET /api/v3/{api}", s.serveJOBv3Gateway)
	s.mux.HandleFunc("POST /_sim/job/file", s.serveEditJobFile)
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.RecordRequests {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.mu.Lock()
		s.requests = append(s.requests, RequestRecord{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		s.mu.Unlock()
	}
	s.mux.ServeHTTP(w, r)
}

// Requests returns the requests received so far (Options.RecordRequests).
func (s *Server) Requests() []RequestRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// SetTaskPolls changes the latency of tasks submitted from now on.
func (s *Server) SetTaskPolls(p TaskPolls) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.TaskPolls = p
}

// Calls returns how many requests api has received.
func (s *Server) Calls(api string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[api]
}

// AllCalls returns how many requests each API has received, keyed as Calls is.
func (s *Server) AllCalls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.calls))
	for api, n := range s.calls {
		out[api] = n
	}
	return out
}

// TaskRecord is one operate task as submitted: which API (JOB ones prefixed
// "job/"), how many operate items (operate_proc_multi holds several) and
// hosts it carried, each target, and how many earlier tasks had not yet been
// polled to completion when it was submitted (Open: 0 when tasks never overlap).
type TaskRecord struct {
	API     string       `json:"api"`
	TaskID  string       `json:"task_id"`
	Items   int          `json:"items"`
	Hosts   int          `json:"hosts"`
	Targets []TaskTarget `json:"targets"`
	Open    int          `json:"open"`
}

// TaskTarget is one host of a task: the process (for JOB, setup_path/proc_name),
// op_type as sent (JOB passes it to GSE unchanged) and host.
type TaskTarget struct {
	Process   string `json:"process"`
	Op        int    `json:"op_type"`
	BkCloudID int64  `json:"bk_cloud_id"`
	IP        string `json:"ip"`
}

// Tasks returns every GSE operate task submitted so far, in order.
func (s *Server) Tasks() []TaskRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.taskLog)
}

// Processes returns a copy of every process registered through GSE, sorted.
func (s *Server) Processes() []Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot(s.procs)
}

func snapshot(store map[procKey]*Process) []Process {
	out := make([]Process, 0, len(store))
	for _, p := range store {
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

// Process returns the state of one process on one host.
func (s *Server) Process(namespace, name string, cloud int64, ip string) (Process, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.procs[keyOf(namespace, name, cloud, ip)]
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

// Drift applies an out-of-band change to one GSE process on one host.
func (s *Server) Drift(action, namespace, name string, cloud int64, ip string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return drift(s.procs, action, keyOf(namespace, name, cloud, ip))
}

func drift(store map[procKey]*Process, action string, k procKey) error {
	p, ok := store[k]
	if !ok {
		return fmt.Errorf("%s/%s is not registered on %d:%s", k.namespace, k.name, k.cloud, k.ip)
	}
	switch action {
	case DriftStop:
		p.Running, p.Hosted, p.PID = false, false, -1
	case DriftUnhost:
		p.Hosted = false
	case DriftUnregister:
		delete(store, k)
	default:
		return fmt.Errorf("unknown drift action %q (want %s, %s or %s)", action, DriftStop, DriftUnhost, DriftUnregister)
	}
	return nil
}

func (s *Server) serveDrift(w http.ResponseWriter, r *http.Request) {
	serveAdmin(w, r, func(d struct {
		Action    string `json:"action"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		BkCloudID int64  `json:"bk_cloud_id"`
		IP        string `json:"ip"`
	}) error {
		return s.Drift(d.Action, d.Namespace, d.Name, d.BkCloudID, d.IP)
	})
}

// serveAdmin decodes an admin call's JSON body and acts on it: 204, or 404 with why it could not.
func serveAdmin[T any](w http.ResponseWriter, r *http.Request, act func(T) error) {
	var body T
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := act(body); err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) serveProcesses(w http.ResponseWriter, _ *http.Request) { writeJSON(w, s.Processes()) }

func (s *Server) serveCalls(w http.ResponseWriter, _ *http.Request) { writeJSON(w, s.AllCalls()) }

func (s *Server) serveTasks(w http.ResponseWriter, _ *http.Request) { writeJSON(w, s.Tasks()) }

func (s *Server) nextID(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s:%s:%d", prefix, time.Now().Format("20060102150405"), s.seq)
}
