package simulator

import (
	"net/http"
	"time"
)

// The clock of GSE's agents, by which a status entry reports when its
// process was registered (register_time), last started (last_start_time)
// and reported (report_time), in unix seconds (get_proc_status_v2; the
// wire contract's status entries). It runs at Options.ClockRate seconds per
// real second from the simulator's start, and a test moves it on with
// Advance: the provider's health gate and canary bake count GSE's time, so
// a test of a ten-minute bake neither waits ten minutes nor sleeps.
type clock struct {
	start  time.Time
	rate   float64
	offset time.Duration
}

// now is the agents' time; the hub's lock held.
func (c *clock) now() time.Time {
	elapsed := time.Since(c.start)
	return c.start.Add(time.Duration(float64(elapsed)*c.rate) + c.offset)
}

// Advance moves the agents' clock on by d.
func (s *Server) Advance(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock.offset += d
}

// serveAdvance is POST /_sim/clock {"advance": "10m"}.
func (s *Server) serveAdvance(w http.ResponseWriter, r *http.Request) {
	serveAdmin(w, r, func(req struct {
		Advance string `json:"advance"`
	}) error {
		d, err := time.ParseDuration(req.Advance)
		if err != nil {
			return err
		}
		s.Advance(d)
		return nil
	})
}
