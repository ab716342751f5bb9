package gse

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// Every phase of a Terraform run (plan, apply, destroy) and every workspace
// is a new provider process whose adaptive Limiter knows nothing of the last
// one. A process alone wants its slow start short; processes that share a
// quota want to start near their share, not to overshoot it together and
// be cut again at every phase. TCP has the same two needs and keeps, per
// destination, the slow-start threshold it last learned (Linux tcp_metrics):
// a paceMemory keeps, per app and root, in a file on this machine, the rate
// the last refusal cut a process to. A new Limiter slow-starts up to it,
// then grows as after a cut; without a recent refusal it slow-starts
// unbounded, as a run alone should.
type paceMemory struct {
	path string
}

// paceMemoryTTL is how long a refusal is remembered: about the span of one
// Terraform run's phases, so that a quiet installation is soon used whole.
const paceMemoryTTL = 10 * time.Minute

type paceRecord struct {
	Rate float64   `json:"rate"` // requests/s a refusal cut a process to
	At   time.Time `json:"at"`
}

// newPaceMemory is the memory of key (a root and an app; never a secret: the
// caller fingerprints tokens) in dir, or nil without a dir.
func newPaceMemory(dir, key string) *paceMemory {
	if dir == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(key))
	return &paceMemory{path: filepath.Join(dir, hex.EncodeToString(sum[:12])+".json")}
}

// threshold is the remembered rate, 0 when there is none from the last
// paceMemoryTTL. An unreadable file is no memory.
func (m *paceMemory) threshold(now time.Time) float64 {
	if m == nil {
		return 0
	}
	b, err := os.ReadFile(m.path)
	var r paceRecord
	if err != nil || json.Unmarshal(b, &r) != nil || now.Sub(r.At) > paceMemoryTTL || r.Rate <= 0 {
		return 0
	}
	return r.Rate
}

// remember records rate, replacing the file whole (a rename) so that a
// process reading it at the same time sees the old record or the new one.
// Failing to write leaves the next process a slow start, nothing worse.
func (m *paceMemory) remember(rate float64, now time.Time) {
	if m == nil {
		return
	}
	b, _ := json.Marshal(paceRecord{Rate: rate, At: now})
	if err := os.MkdirAll(filepath.Dir(m.path), 0o700); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(m.path), ".pace-*")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), m.path) != nil {
		_ = os.Remove(f.Name())
	}
}
