package simulator

import (
	"cmp"
	"net/http"
	"slices"
	"time"
)

// Forever, as the Times of a Fault or a HostFault, keeps it armed until
// ClearFaults. Times 0 (the zero value) means once, for both.
const Forever = -1

// Fault makes whole requests to API ("" = any) misbehave Times times (0 =
// once, Forever = until cleared). Each field is one knob, so a table of faults
// reads as a table of cases:
//   - Code answers that code instead of acting, in the shape, status and
//     message of the server whose code it is (refusals.go): 1306201 and
//     1306429 as ESB, 1640001-1650401 as the gateway, 1199997 and 1199027 as
//     bk-cmdb's apiserver, 1240001, 1240002 and 9900403 (with the
//     permission the user lacks) to a jobv3/ API as JOB, others as the
//     backend; HTTPStatus with it
//     overrides the status. HTTPStatus alone answers that status (500, 502,
//     503, 429, ...) with a body of no server's. Acted makes the server act
//     on the request first (a failure after the work was done).
//   - Delay holds the reply (the real one, or the status above) this long: past
//     the client's request timeout, the client sees a timeout of a request the
//     server acted on.
//   - Cut sends half of the reply and drops the connection (the server acted).
//   - Echo puts the whole request body, credentials included, into the error
//     message and the X-Bkapi-Error-Message header, as some components do.
type Fault struct {
	API        string
	HTTPStatus int
	Code       int
	Message    string
	RetryAfter string
	Times      int
	Acted      bool
	Delay      time.Duration
	Cut        bool
	Echo       bool
}

// HostFault makes one host's result of API answer Code for Times requests
// (0 = once, Forever = until cleared). For operate APIs it applies to tasks whose op_type is in Ops
// (nil = any); a Code of 115 there means the host never finishes that task.
// Missing leaves the host out of the result map instead (GSE does so for a
// while; with Times Forever, until the deadline). A fault for operate_proc_v2 also
// applies to the items of operate_proc_multi, which are operate_proc_v2 bodies.
type HostFault struct {
	API     string
	IP      string
	Ops     []int
	Code    int
	Message string
	Missing bool
	Times   int
}

// AddFault injects request-level faults.
func (s *Server) AddFault(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range f {
		x.Times = armed(x.Times)
		s.faults = append(s.faults, &x)
	}
}

// AddHostFault injects per-host result codes.
func (s *Server) AddHostFault(f ...HostFault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range f {
		x.Times = armed(x.Times)
		s.hostFaults = append(s.hostFaults, &x)
	}
}

// armed is how many times a fault given times fires: the zero value once.
func armed(times int) int {
	if times == 0 {
		return 1
	}
	return times
}

// FaultsLeft is how many request-level faults are still armed: a test
// asserts that the ones it injected fired.
func (s *Server) FaultsLeft() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.faults)
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
			if f.Times != Forever {
				f.Times--
				if f.Times <= 0 {
					s.faults = slices.Delete(s.faults, i, i+1)
				}
			}
			return f
		}
	}
	return nil
}

// takeHostFault consumes a per-host fault for one of apis, ip and op (noOp:
// not an operation; Ops do not apply).
func (s *Server) takeHostFault(api, ip string, op opType, also ...string) *HostFault {
	for _, f := range s.hostFaults {
		if f.Times == 0 /* spent */ || (f.API != api && !slices.Contains(also, f.API)) || f.IP != ip || (op >= 0 && f.Ops != nil && !slices.Contains(f.Ops, int(op))) {
			continue
		}
		if f.Times > 0 {
			f.Times--
		}
		return f
	}
	return nil
}

// acts reports whether the request reaches the API before the fault shows.
func (f *Fault) acts() bool { return f.Acted || (f.HTTPStatus == 0 && f.Code == 0 && !f.Echo) }

// reply is what the client receives for a request to api (through the
// gateway or not): rep, the API's answer, unless the fault replaces it with
// a refusal in the shape of the server whose code it is (refusals.go),
// delivered late or cut as the fault says.
func (f *Fault) reply(api string, raw []byte, rep reply, gateway bool) reply {
	switch {
	case f.Code != 0:
		rep = refusal(f.Code, api, raw, gateway)
		if f.HTTPStatus != 0 {
			rep.status = f.HTTPStatus
		}
		if f.Message != "" {
			rep.msg = f.Message
		}
	case f.HTTPStatus != 0:
		// A status alone: a proxy or load balancer in front of it all, its own body.
		rep = reply{status: f.HTTPStatus, msg: cmp.Or(f.Message, http.StatusText(f.HTTPStatus)), shape: shapeBackend}
	}
	rep.header = http.Header{}
	if f.RetryAfter != "" {
		rep.header.Set("Retry-After", f.RetryAfter)
	}
	if f.Echo {
		rep.msg = "invalid request: " + string(raw)
		if f.HTTPStatus == 0 && f.Code == 0 {
			rep.status, rep.code = http.StatusOK, codeBadParams
		}
		rep.header.Set("X-Bkapi-Error-Message", "invalid request: "+string(raw))
	}
	rep.delay, rep.cut = f.Delay, f.Cut
	return rep
}
