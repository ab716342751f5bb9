package lifecycle

import (
	"context"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// rollOperate performs op on targets batch by batch (d.Rollout, see
// rollout.Settings.Run) through operate, the path every operation of the
// lifecycle takes, and returns the hosts where it succeeded. wait_running
// applies to the operations that leave the process running
// (gse.OpInfo.Starts).
func (s Steps) rollOperate(ctx context.Context, d Desired, op gse.OpType, targets []gse.Host, pr *Proven) ([]gse.Host, error) {
	st := rollout.Step[gse.Host]{Place: rollout.HostPlace, What: rollout.Verb(op), Target: d.Meta, Run: func(ctx context.Context, batch []gse.Host) error {
		_, err := s.operate(ctx, d.Meta, d.Spec, op, batch, pr)
		return err
	}}
	if op.Info().Starts && !d.Spec.OneShot() { // a one-shot exits by design
		st.NotRunning = &rollout.RunningCheck[gse.Host]{Client: s.Client, Query: status.GSENotRunning(s.Client, d.Meta)}
	}
	return rollout.Run(ctx, d.Rollout, targets, st)
}

// operate performs op on targets and waits for it. Without a spec (an
// imported resource before its first apply) it uses operate_proc, which acts
// on the registered spec. What succeeded is noted in pr.
func (s Steps) operate(ctx context.Context, meta gse.Meta, spec *gse.Spec, op gse.OpType, targets []gse.Host, pr *Proven) (*gse.Outcome, error) {
	if len(targets) == 0 {
		return &gse.Outcome{}, nil
	}
	req := gse.OperateRequest{Meta: meta, Hosts: targets, Op: op, Spec: spec}
	var out *gse.Outcome
	var err error
	if spec == nil {
		out, err = s.Client.Proc.OperateV1(ctx, req)
	} else {
		out, err = s.Client.Proc.Operate(ctx, req)
	}
	if err == nil {
		pr.note(targets, op, spec.OneShot())
	}
	return out, err
}
