package lifecycle

import (
	"context"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// TriggerProgress is how a restart or reload trigger that did not reach
// every host is finished. The state keeps the prior trigger value, so the
// next plan shows the trigger still to apply; the family keeps, per trigger,
// the value being rolled out and the hosts it already reached (in private
// state). The next apply runs it only on the other hosts, and only while
// the trigger still has that value: a new value must reach every host again.
type TriggerProgress struct {
	Want string   `json:"want"` // the trigger's value being rolled out (Desired.RestartTriggers, ReloadTriggers)
	Done []string `json:"done"` // gse.Host.Key of the hosts it reached
}

// TriggerProgresses are the unfinished triggers by name ("restart", "reload").
type TriggerProgresses map[string]TriggerProgress

// runTriggers runs restart and reload on every planned host when their
// triggers changed.
func (u *update) runTriggers(ctx context.Context, progress TriggerProgresses) error {
	for _, t := range []struct {
		name        string
		op          gse.OpType
		next, prior *string
		applied     *bool
	}{
		{"restart", gse.OpRestart, u.next.RestartTriggers, u.prior.RestartTriggers, &u.applied.Restart},
		{"reload", gse.OpReload, u.next.ReloadTriggers, u.prior.ReloadTriggers, &u.applied.Reload},
	} {
		if t.next != nil && (t.prior == nil || *t.next != *t.prior) {
			if err := u.s.runTrigger(ctx, u.next, t.name, t.op, *t.next, progress, u.pr); err != nil {
				return err
			}
		}
		delete(progress, t.name)
		*t.applied = true
	}
	return nil
}

// runTrigger runs a changed trigger's op, its value being want, on the
// hosts of d it still owes, and records how far it got in progress.
func (s Steps) runTrigger(ctx context.Context, d Desired, name string, op gse.OpType, want string, progress TriggerProgresses, pr *Proven) error {
	prev, resumed := progress[name]
	hosts := d.Hosts
	if resumed && prev.Want == want {
		hosts = plumbing.SelectBy(d.Hosts, gse.Host.Key, prev.Done, false)
	} else {
		prev = TriggerProgress{Want: want}
	}
	done, err := s.rollOperate(ctx, d, op, hosts, pr)
	if err != nil {
		prev.Done = append(prev.Done, plumbing.Each(done, gse.Host.Key)...)
		progress[name] = prev
		return err
	}
	delete(progress, name)
	return nil
}
