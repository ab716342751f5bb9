package simulator

import (
	"net/http"
	"slices"
)

// Fault makes whole requests to API ("" = any) fail Times times (0 = once).
// HTTPStatus alone answers that status (500, 502, 429, ...); Code alone answers
// HTTP 200 with that envelope code (1306429, 1642901, 1306401, ...).
type Fault struct {
	API        string
	HTTPStatus int
	Code       int
	Message    string
	RetryAfter string
	Times      int
}

// HostFault makes one host's result of API answer Code for Times requests
// (0 = forever). For operate APIs it applies to tasks whose op_type is in Ops
// (nil = any); a Code of 115 there means the host never finishes that task.
type HostFault struct {
	API     string
	IP      string
	Ops     []int
	Code    int
	Message string
	Times   int
}

// AddFault injects request-level faults.
func (s *Server) AddFault(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range f {
		if x.Times == 0 {
			x.Times = 1
		}
		s.faults = append(s.faults, &x)
	}
}

// AddHostFault injects per-host result codes.
func (s *Server) AddHostFault(f ...HostFault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range f {
		if x.Times == 0 {
			x.Times = -1
		}
		s.hostFaults = append(s.hostFaults, &x)
	}
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults, s.hostFaults = nil, nil
}

// takeFault consumes a request-level fault for api, if one is armed.
func (s *Server) takeFault(api string) *Fault {
	for i, f := range s.faults {
		if f.API == "" || f.API == api {
			f.Times--
			if f.Times <= 0 {
				s.faults = slices.Delete(s.faults, i, i+1)
			}
			return f
		}
	}
	return nil
}

// takeHostFault consumes a per-host fault for api, ip and op (-1 = not an operation).
func (s *Server) takeHostFault(api, ip string, op int) *HostFault {
	for _, f := range s.hostFaults {
		if f.Times == 0 || f.API != api || f.IP != ip || (op >= 0 && f.Ops != nil && !slices.Contains(f.Ops, op)) {
			continue
		}
		if f.Times > 0 {
			f.Times--
		}
		return f
	}
	return nil
}

func writeFault(w http.ResponseWriter, f *Fault) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	status := f.HTTPStatus
	if status == 0 {
		status = http.StatusOK
	}
	msg := f.Message
	if msg == "" {
		msg = http.StatusText(status)
		if f.Code != 0 {
			msg = "injected fault"
		}
	}
	code := f.Code
	if code == 0 && status == http.StatusTooManyRequests {
		code = 1642903
	}
	writeEnvelope(w, status, code, msg, nil)
}
