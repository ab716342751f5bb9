package simulator

import "time"

// A resident process (monitor_policy auto_type 1) that dies is started again
// by its agent, with a new pid and last_start_time: what a status read then
// reports. SetDiesAfterOperation makes one die a chosen time of the agents'
// clock (clock.go) after the next operation that leaves it running (start,
// restart, reload): a crash that a health gate or a canary's bake must see,
// at a time the test controls, with no sleep.

// dying is a process's death to come: after its next operation, by after.
type dying struct {
	after time.Duration
	at    time.Time // zero until the operation arms it
}

// SetDiesAfterOperation makes the GSE process namespace/name on cloud:ip die
// after by the agents' clock once its next start, restart or reload is done;
// its agent restarts it then.
func (s *Server) SetDiesAfterOperation(namespace, name string, cloud int64, ip string, after time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dies == nil {
		s.dies = map[procKey]*dying{}
	}
	s.dies[keyOf(namespace, name, cloud, ip)] = &dying{after: after}
}

// armDeath starts the clock of p's death, if one waits for an operation; the
// hub's lock held.
func (s *Server) armDeath(p *Process, now time.Time) {
	if d, ok := s.dies[keyOf(p.Namespace, p.Name, p.BkCloudID, p.IP)]; ok && d.at.IsZero() {
		d.at = now.Add(d.after)
	}
}

// guard is p as its agent keeps it at now: past its death, started again;
// the hub's lock held.
func (s *Server) guard(p *Process, now time.Time) {
	k := keyOf(p.Namespace, p.Name, p.BkCloudID, p.IP)
	d, ok := s.dies[k]
	if !ok || d.at.IsZero() || now.Before(d.at) || !p.Running {
		return
	}
	delete(s.dies, k)
	s.seq++
	p.PID, p.LastStartTime = int64(10000+s.seq), d.at.Unix()
}
