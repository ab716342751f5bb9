package rollout

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// rolloutError says how far a rollout got: the failed targets with their
// codes, the targets it never reached, and the errors of its batches.
type rolloutError[T Target] struct {
	what       string
	target     fmt.Stringer
	total      int
	batches    int
	stoppedAt  int    // the last batch run, 1-based; batches when every batch ran
	tier       string // " (tier i of n)", the tier of batch stoppedAt, when there are tiers
	maxFail    int64
	done       int
	failed     []Failure[T]
	untouched  []T
	causes     []error
	stopReason string
}

func (e *rolloutError[T]) Error() string {
	var b strings.Builder
	if e.stopReason != "" {
		fmt.Fprintf(&b, "rolling %s of %s stopped after batch %d of %d%s: %s.", e.what, e.target, e.stoppedAt, e.batches, e.tier, e.stopReason)
	} else {
		fmt.Fprintf(&b, "rolling %s of %s ran all %d batches and failed on %d of %d hosts (within max_fail_percentage = %d).",
			e.what, e.target, e.batches, len(e.failed), e.total, e.maxFail)
	}
	fmt.Fprintf(&b, "\nDone on %d of %d hosts.", e.done, e.total)
	if len(e.failed) > 0 {
		fmt.Fprintf(&b, "\nFailed (%s):", plumbing.HostCount(len(e.failed)))
		for _, f := range names(e.failed) {
			b.WriteString("\n  - " + f)
		}
	}
	if len(e.untouched) > 0 {
		fmt.Fprintf(&b, "\nUntouched (%s, not reached by the rollout):", plumbing.HostCount(len(e.untouched)))
		for _, t := range names(e.untouched) {
			b.WriteString("\n  - " + t)
		}
	}
	for _, c := range e.causes {
		b.WriteString("\n" + c.Error())
	}
	return b.String()
}

// Unwrap exposes the batches' errors, so advice finds their GSE codes.
func (e *rolloutError[T]) Unwrap() []error { return e.causes }

// report logs batch i (0-based) once run at INFO and, in the action, sends it as progress.
func (ro *rolling[T]) report(ctx context.Context, i int, failed []Failure[T]) {
	st, b, n := ro.st, ro.batches[i], len(ro.batches)
	result := "ok"
	if len(failed) > 0 {
		result = fmt.Sprintf("failed on %d of %d hosts: %s", len(failed), len(b.targets), strings.Join(names(failed), "; "))
	}
	size := plumbing.HostCount(len(b.targets))
	if len(ro.tiers) > 1 {
		size = fmt.Sprintf("tier %d/%d, %s", b.tier+1, len(ro.tiers), size)
	}
	msg := fmt.Sprintf("rolling %s of %s: batch %d/%d (%s) %s", st.What, st.Target, i+1, n, size, result)
	tflog.Info(ctx, msg, map[string]any{"batch": fmt.Sprintf("%d/%d", i+1, n), "hosts": strings.Join(names(b.targets), ", "), "result": result})
	if st.Progress != nil {
		st.Progress(msg)
	}
}

// names are the String of each of xs.
func names[S fmt.Stringer](xs []S) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.String()
	}
	return out
}
