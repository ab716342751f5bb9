package simulator

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
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
	// ClockRate is how many seconds the agents' clock (the times status
	// entries report) runs per real second; 0 is 1 (clock.go).
	ClockRate float64
	// CMDBHostsPerModule is how many hosts each generated module holds (two
	// modules a set); 0 is CMDBHostsPerModule. A test of several sets or
	// modules sets it low.
	CMDBHostsPerModule int
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
	// UpdateLabels is what a request that rewrites a registered process
	// (update_proc_info, a gateway operation carrying the spec) does with the
	// labels it does not send: LabelsReplaced (the zero value) or LabelsKept.
	UpdateLabels LabelsOnUpdate
}

// RequestRecord is one request as received.
type RequestRecord struct {
	Path   string
	Header http.Header
	Body   []byte
}

// Server is the simulator's hub, an http.Handler: it routes each request to
// the endpoint of its family and holds what the families share (doc.go).
type Server struct {
	// mu guards the hub and the state of every endpoint: one request reaches
	// the state of several families (doc.go).
	mu         sync.Mutex
	opts       Options
	mux        *http.ServeMux
	requests   []RequestRecord
	calls      map[string]int
	quota      quota // the app's rate limit and the APIs missing, in quota.go
	faults     []*Fault
	hostFaults []*HostFault
	tasks      tasks              // GSE's operate tasks, JOB's among them, in tasks.go
	rewrite    bool               // the API gateway's bk-status-rewrite, in apigateway.go
	seq        int                // task ids and pids
	clock      clock              // the agents' clock, in clock.go
	dies       map[procKey]*dying // SetDiesAfterOperation, in agent_guard.go

	gse     *GSE
	gateway *Gateway
	job     *JOB
	jobv3   *JOBv3
	cmdb    *CMDB
}

// New returns a simulator with no processes and the generated CMDB business.
func New(opts Options) *Server {
	switch {
	case opts.InstantTasks:
		opts.TaskPolls, opts.TaskLatency = TaskPolls{}, 0
	case opts.TaskPolls == (TaskPolls{}) && opts.TaskLatency == 0:
		opts.TaskPolls = TaskPolls{Unqueued: 2, Pending: 2}
	}
	s := &Server{opts: opts, calls: map[string]int{}, tasks: tasks{byID: map[string]*task{}}, clock: clock{start: time.Now(), rate: cmp.Or(opts.ClockRate, 1)}}
	s.gse = &GSE{book: book{hub: s, procs: processes{}}, down: map[procKey]bool{}}
	s.gateway = &Gateway{hub: s, gse: s.gse, agents: map[string]agent{}, ofHost: map[procKey]string{}, states: map[string]int{}}
	s.job = &JOB{book: book{hub: s, procs: processes{}}, down: map[procKey]int{}}
	s.cmdb = &CMDB{hub: s}
	s.jobv3 = &JOBv3{hub: s, cmdb: s.cmdb, gse: s.gse, files: map[int64]map[string][]byte{}, down: map[int64]bool{}, missing: map[int64]map[string]bool{},
		closed: map[int64]map[int]bool{}, jobs: map[int64]*jobInstance{}}
	s.cmdb.perModule = cmp.Or(opts.CMDBHostsPerModule, CMDBHostsPerModule)
	s.cmdb.generate(opts.CMDBHosts, opts.CMDBProcessTemplates, s.gateway)
	s.mux = http.NewServeMux()
	s.route()
	return s
}

// route serves each family's APIs through its endpoint, and the admin routes.
func (s *Server) route() {
	for p, h := range map[string]http.HandlerFunc{
		"/api/c/compapi/v2/gse/{api}":                          s.gse.serve,
		"/api/v2/proc/{api}":                                   s.gateway.serve,
		"/api/v2/cluster/{api}":                                s.gateway.serve,
		"/api/c/compapi/v2/cc/{api}":                           s.cmdb.serve,
		"/api/c/compapi/v2/jobv3/{api}":                        s.jobv3.serve,
		"/api/v3/{api}":                                        s.jobv3.serveGateway,
		"/api/v3/hosts/app/{biz}/list_hosts":                   s.cmdb.serveHostsGateway,
		"/api/v3/hosts/app/{biz}/list_hosts_topo":              s.cmdb.serveHostsTopoGateway,
		"/api/v3/findmany/proc/process_related_info/biz/{biz}": s.cmdb.serveProcessesGateway,
		"/api/v3/findmany/set/bk_biz_id/{biz}":                 s.cmdb.serveModelGateway(cmdbSetBatchAPI),
		"/api/v3/findmany/module/bk_biz_id/{biz}":              s.cmdb.serveModelGateway(cmdbModuleBatchAPI),
		"/api/v3/find/objectattr":                              s.cmdb.serveModelGateway(cmdbAttrAPI),
	} {
		s.mux.HandleFunc("POST "+p, h)
		s.mux.HandleFunc("POST "+p+"/{$}", h) // Python callers add a slash, Go callers do not
	}
	s.mux.HandleFunc("POST /api/c/compapi/v2/job/{api}", s.job.serve)
	s.mux.HandleFunc("POST /api/c/compapi/v2/job/{api}/{$}", s.job.serve)
	s.mux.HandleFunc("GET /api/v3/{api}", s.jobv3.serveGateway)
	s.mux.HandleFunc("POST /_sim/drift", s.gse.serveDrift)
	s.mux.HandleFunc("POST /_sim/clock", s.serveAdvance)
	s.mux.HandleFunc("GET /_sim/processes", s.gse.serveProcesses)
	s.mux.HandleFunc("GET /_sim/calls", s.serveCalls)
	s.mux.HandleFunc("GET /_sim/tasks", s.serveTasks)
	s.mux.HandleFunc("GET /_sim/cmdb/hosts", s.cmdb.serveHosts)
	s.mux.HandleFunc("POST /_sim/cmdb/move", s.cmdb.serveMoveHost)
	s.mux.HandleFunc("GET /_sim/cmdb/process_templates", s.cmdb.serveProcessTemplates)
	s.mux.HandleFunc("POST /_sim/cmdb/process_template", s.cmdb.serveEditProcessTemplate)
	s.mux.HandleFunc("POST /_sim/job/file", s.jobv3.serveSetFile)
	s.mux.HandleFunc("GET /_sim/job/files/{id}", s.jobv3.serveFiles)
	s.mux.HandleFunc("POST /_sim/job/port", s.jobv3.serveSetPortClosed)
	s.mux.HandleFunc("GET /_sim/job/listening/{id}", s.jobv3.serveListening)
	s.mux.HandleFunc("POST /_sim/job/script_fails", s.jobv3.serveSetScriptFails)
}

// GSE is the endpoint of GSE's process APIs through ESB.
func (s *Server) GSE() *GSE { return s.gse }

// Gateway is the endpoint of GSE 2.0 through the API gateway.
func (s *Server) Gateway() *Gateway { return s.gateway }

// JOB is the endpoint of JOB's process APIs (ESB job/...).
func (s *Server) JOB() *JOB { return s.job }

// JOBv3 is the endpoint of JOB's v3 file and script APIs.
func (s *Server) JOBv3() *JOBv3 { return s.jobv3 }

// CMDB is the endpoint of bk-cmdb's host and process listings.
func (s *Server) CMDB() *CMDB { return s.cmdb }

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
	return maps.Clone(s.calls)
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

func (s *Server) serveCalls(w http.ResponseWriter, _ *http.Request) { writeJSON(w, s.AllCalls()) }

func (s *Server) serveTasks(w http.ResponseWriter, _ *http.Request) { writeJSON(w, s.Tasks()) }

func (s *Server) nextID(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s:%s:%d", prefix, time.Now().Format("20060102150405"), s.seq)
}
