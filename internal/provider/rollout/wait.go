package rollout

import "context"

// waitRunning polls until GSE reports every target running or ctx ends, and
// splits targets into those running and those that never did. When ctx ends
// during a read, targets are judged by the last read that answered: the
// deadline cutting a read short says nothing about the targets.
func waitRunning[T Target](ctx context.Context, targets []T, check *RunningCheck[T]) ([]T, []Failure[T]) {
	var bad map[string]string
	var err error
	sched := check.Client.PollSchedule()
	for {
		answer, readErr := check.Query(ctx, targets)
		if readErr == nil {
			bad, err = answer, nil
		} else if bad == nil || ctx.Err() == nil {
			err = readErr
		}
		if readErr == nil && len(bad) == 0 {
			return targets, nil
		}
		if sched.Next(ctx) != nil {
			var ok []T
			var sick []Failure[T]
			for _, t := range targets {
				switch reported, isBad := bad[t.Key()]; {
				case err != nil:
					sick = append(sick, Failure[T]{t, "its status could not be read before the timeout: " + err.Error()})
				case isBad:
					sick = append(sick, Failure[T]{t, "not running before the timeout (wait_running): GSE reports " + reported})
				default:
					ok = append(ok, t)
				}
			}
			return ok, sick
		}
	}
}
