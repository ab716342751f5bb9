package lifecycle

import (
	"context"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Send brings a process registered on targets to d's spec and then performs
// op there (OpNone: the spec alone), for a family that schedules the hosts
// of its processes itself (gse_service). Through ESB the spec goes by
// update_proc_info; through the gateway, which has no such API, the
// operation carries it, and the spec alone goes with op 3 (hosting), as
// gse_managed_process's update sends it, or op 4 for a process not hosted. A nil spec (imported, never applied)
// sends nothing and operates on the registered one.
func (s Steps) Send(ctx context.Context, d Desired, op gse.OpType, targets []gse.Host, pr *Proven) error {
	if len(targets) == 0 {
		return nil
	}
	if d.Spec != nil && !d.SpecHeld && !s.Client.Gateway() {
		if _, err := s.Client.Proc.UpdateProcInfo(ctx, d.Meta, targets, d.Spec); err != nil {
			return err
		}
	}
	switch {
	case op != OpNone:
	case s.Client.Gateway() && d.Spec != nil && d.Managed:
		op = gse.OpHost
	case s.Client.Gateway() && d.Spec != nil:
		op = gse.OpUnhost
	default:
		return nil
	}
	_, err := s.operate(ctx, d.Meta, d.Spec, op, targets, pr)
	return err
}

// OpNone asks Send for the spec alone.
const OpNone gse.OpType = -1
