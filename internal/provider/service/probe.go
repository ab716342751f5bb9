package service

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
)

// probes are the health gate's checks through JOB, when health asks for any.
type probes struct {
	scope  gse.JobScope
	checks health.Checks
}

// probe runs the JOB checks on the instances that passed the pid gate until
// each passes them or ctx (healthy_deadline) ends; those that never do fail
// with the last reason. A round that could not run fails every instance it
// held.
func (r *runner) probe(ctx context.Context, ins []*instance) {
	if r.probes == nil || len(ins) == 0 {
		return
	}
	left := ins
	why := map[string]string{}
	sched := r.steps.Client.PollSchedule()
	for {
		targets := make([]health.Target, len(left))
		for i, in := range left {
			targets[i] = in.target()
		}
		bad, err := health.Check(ctx, r.steps.Client, r.probes.scope, targets, r.probes.checks)
		switch {
		case err != nil && ctx.Err() != nil && len(why) > 0:
			r.unhealthy(left, why) // the deadline cut a later round short
			return
		case err != nil:
			// The client sent again what could be; what is left is a
			// refusal (an account JOB lacks, a permission) a wait does not mend.
			r.fail(left, apiCode(err), "the health checks could not run: "+err.Error())
			return
		}
		var still []*instance
		for _, in := range left {
			if reason, sick := bad[in.key]; sick {
				why[in.key] = reason
				still = append(still, in)
			}
		}
		if left = still; len(left) == 0 {
			return
		}
		if sched.Next(ctx) != nil {
			r.unhealthy(left, why)
			return
		}
	}
}

// unhealthy fails ins, past healthy_deadline, each with its last reason.
func (r *runner) unhealthy(ins []*instance, why map[string]string) {
	for _, in := range ins {
		r.fail([]*instance{in}, 0, fmt.Sprintf("not healthy within health.healthy_deadline (%s): %s", r.gate.deadline, why[in.key]))
	}
}

// target is in as the JOB checks and pushes take it.
func (in *instance) target() health.Target {
	return health.Target{Key: in.key, Host: in.host, BkHostID: in.bkHostID, Ports: in.ports}
}

// probesOf are the JOB checks m's health asks for, or nil.
func probesOf(m *serviceModel) *probes {
	h := m.Health
	if h == nil || (h.TCP == nil && h.Script == nil) {
		return nil
	}
	p := &probes{scope: gse.BizScope(m.BkBizID.ValueInt64()), checks: health.Checks{TCP: h.TCP != nil}}
	if s := h.Script; s != nil {
		p.checks.Script = &health.Script{Content: s.Content.ValueString(), Account: cmp.Or(s.Account.ValueString(), "root")}
		p.checks.Script.Timeout, _ = time.ParseDuration(s.Timeout.ValueString())
	}
	return p
}
