package lifecycle

import (
	"context"
	"errors"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// Destroy ends the process on targets: through the gateway it fails at once
// on a down agent (hosts.AgentsUp), then it stops (stop) or unhosts the
// process and unregisters it (teardown).
func (s Steps) Destroy(ctx context.Context, meta gse.Meta, spec *gse.Spec, targets []gse.Host, stop bool) error {
	if err := hosts.AgentsUp(ctx, s.Client, targets); err != nil {
		return err
	}
	_, err := s.teardown(ctx, meta, spec, targets, stop)
	return err
}

// teardown stops (stop) or unhosts the process on targets, then unregisters
// it. A spec without stop_cmd is unhosted, never stopped: GSE's stop runs
// stop_cmd, and GSEKit sends no stop without one (OP_TYPE_PROCESS_ATTR_MAP),
// so the process is left running, as the plan warned (StopLeavesRunning). It trusts the refreshed state that the process is registered there, so
// it reads no status first: one task per step. A stop also unhosts
// (operate_proc_v2); only hosts answering 829 (not running) are unhosted with
// op 4 after it. When the first step fails on some hosts, their status is
// read then (the state may be stale, as after destroy -refresh=false): hosts
// where the process is gone are skipped, any other failure stands. It
// returns the hosts now clear of it.
func (s Steps) teardown(ctx context.Context, meta gse.Meta, spec *gse.Spec, targets []gse.Host, stop bool) ([]gse.Host, error) {
	var pr Proven
	stop = stop && !StopLeavesRunning(spec)
	op := gse.OpUnhost
	if stop {
		op = gse.OpStop
	}
	out, err := s.operate(ctx, meta, spec, op, targets, &pr)
	present, gone := targets, []gse.Host(nil)
	if err != nil {
		var he *gse.HostsError
		if !errors.As(err, &he) || len(he.Pending) > 0 || len(he.Failures) == 0 {
			return nil, err
		}
		failed := make([]gse.Host, len(he.Failures))
		for i, f := range he.Failures {
			failed[i] = f.Host
		}
		registered, serr := status.Find(ctx, s.Client, meta, failed)
		if serr != nil {
			return nil, err
		}
		for _, h := range failed {
			if _, ok := registered[h.Key()]; !ok {
				gone = append(gone, h)
			}
		}
		if len(gone) < len(failed) {
			return gone, err
		}
		present = plumbing.SelectBy(targets, gse.Host.Key, plumbing.Each(gone, gse.Host.Key), false)
	}
	if stop {
		var notRunning []gse.Host
		for _, o := range out.Hosts {
			if o.ErrorCode == gse.HostNotRunning {
				notRunning = append(notRunning, o.Host)
			}
		}
		if _, err := s.operate(ctx, meta, spec, gse.OpUnhost, plumbing.SelectBy(present, gse.Host.Key, plumbing.Each(notRunning, gse.Host.Key), true), &pr); err != nil {
			return gone, err
		}
	}
	if len(present) == 0 || s.Client.Gateway() { // GSE 2.0 has no unregister: a stop or unhost ends the process
		return append(gone, present...), nil
	}
	done, err := s.Client.Proc.UnregisterProcInfo(ctx, meta, present)
	return append(gone, done...), err
}

// StopLeavesRunning reports a spec whose process a stop cannot end: one
// without stop_cmd.
func StopLeavesRunning(spec *gse.Spec) bool {
	return spec != nil && spec.Control.StopCmd == ""
}
