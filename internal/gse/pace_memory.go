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
// is a new provider process that knows nothing of the last one. TCP has the
// same problem and keeps, per destination, what it last learned (Linux
// tcp_metrics: the slow-start threshold, the round-trip time); a memory
// keeps a value, per installation, in a file on this machine, for a while:
//   - the rate the last refusal cut a process of an app to (paceMemory): a
//     process alone wants its slow start short, processes that share a quota
//     want to start near their share, not to overshoot it together and be
//     cut again at every phase. A new Limiter slow-starts up to it, then grows
//     as after a cut; without a recent refusal it slow-starts unbounded, as a
//     run alone should;
//   - when the installation's tasks of a kind finish (pollMemory): a new
//     process polls its first task of the kind when the last process saw
//     them finish (firstPoll), not on the unlearned schedule, which sees a
//     task of 1 s only at 2.1 s.
type memory[T any] struct {
	path string
	ttl  time.Duration
}

// The memories' lifetimes: about the span of one Terraform run's phases, so
// that a quiet installation is soon used whole and a faster one soon
// polled sooner.
const (
	paceMemoryTTL = 10 * time.Minute
	pollMemoryTTL = 10 * time.Minute
)

type memoryRecord[T any] struct {
	Value T         `json:"value"`
	At    time.Time `json:"at"`
}

// newMemory is the memory of key (never a secret: the caller fingerprints
// tokens) in dir, kept for ttl, or nil without a dir.
func newMemory[T any](dir, key string, ttl time.Duration) *memory[T] {
	if dir == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(key))
	return &memory[T]{path: filepath.Join(dir, hex.EncodeToString(sum[:12])+".json"), ttl: ttl}
}

// newPaceMemory remembers, for a root and an app, the rate (requests/s) a
// refusal cut a process to.
func newPaceMemory(dir, key string) *memory[float64] {
	return newMemory[float64](dir, key, paceMemoryTTL)
}

// newPollMemory remembers, for a root and a kind of task, the first poll's
// learned wait.
func newPollMemory(dir, key string) *memory[time.Duration] {
	return newMemory[time.Duration](dir, "poll|"+key, pollMemoryTTL)
}

// recall is the value remembered within the memory's lifetime; ok is false
// when there is none. An unreadable file is no memory.
func (m *memory[T]) recall(now time.Time) (v T, ok bool) {
	if m == nil {
		return v, false
	}
	b, err := os.ReadFile(m.path)
	var r memoryRecord[T]
	if err != nil || json.Unmarshal(b, &r) != nil || now.Sub(r.At) > m.ttl {
		return v, false
	}
	return r.Value, true
}

// remember records v, replacing the file whole (a rename) so that a process
// reading it at the same time sees the old record or the new one. Failing
// to write leaves the next process to learn again, nothing worse.
func (m *memory[T]) remember(v T, now time.Time) {
	if m == nil {
		return
	}
	b, _ := json.Marshal(memoryRecord[T]{Value: v, At: now})
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
