package rollout

import (
	"errors"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// settle splits a batch by the error of its step: the targets it succeeded
// on, those it failed on, left pending or did nothing on, and whether the
// step failed as a whole (no per-target account: GSE may have acted on any
// target, or on none).
func settle[T Target](st Step[T], batch []T, err error) (ok []T, failed []Failure[T], whole bool) {
	if err == nil {
		return batch, nil, false
	}
	read := st.Settle
	if read == nil {
		read = settleHosts[T]
	}
	failed, accounted := read(batch, err)
	if !accounted {
		for _, t := range batch {
			failed = append(failed, Failure[T]{t, "no result of its own: the call failed as a whole (below)"})
		}
		return nil, failed, true
	}
	bad := map[string]bool{}
	for _, f := range failed {
		bad[f.Target.Key()] = true
	}
	for _, t := range batch {
		if !bad[t.Key()] {
			ok = append(ok, t)
		}
	}
	return ok, failed, false
}

// settleHosts reads a *gse.HostsError: its failed, pending and not-acted
// hosts are the targets of batch with their Key (the hosts a step sends are
// its batch's). Any other error has no per-target account.
func settleHosts[T Target](batch []T, err error) ([]Failure[T], bool) {
	var he *gse.HostsError
	if !errors.As(err, &he) {
		return nil, false
	}
	byKey := make(map[string]T, len(batch))
	for _, t := range batch {
		byKey[t.Key()] = t
	}
	var failed []Failure[T]
	add := func(h gse.Host, reason string) {
		if t, ok := byKey[h.Key()]; ok {
			failed = append(failed, Failure[T]{t, reason})
		}
	}
	for _, f := range he.Failures {
		add(f.Host, strings.TrimPrefix(f.String(), f.Host.String()+": "))
	}
	for _, h := range he.Pending {
		add(h, "no result (still pending)")
	}
	for _, h := range he.NotActed {
		add(h, "nothing done there (not sent, or refused)")
	}
	return failed, true
}
