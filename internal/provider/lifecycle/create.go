package lifecycle

import (
	"context"
	"errors"
	"slices"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// Steps are the GSE calls a process's create, update and destroy are made
// of (register, operate, teardown), each recording in a Proven what
// succeeded.
type Steps struct{ Client *gse.Client }

// Create makes d exist on its hosts: once they can be reached
// (hosts.Reachable) and, through the gateway, no other owner hosts the
// process there (refuseLive), it registers and converges the process batch
// by batch (createInBatches). It returns the hosts where the process may be
// registered, also after an error: none when nothing was sent.
func (s Steps) Create(ctx context.Context, d Desired, pr *Proven) ([]gse.Host, error) {
	err := hosts.Reachable(ctx, s.Client, d.Hosts)
	if err == nil {
		err = refuseLive(ctx, s.Client, d.Meta, d.Hosts)
	}
	if err != nil {
		return nil, err
	}
	return s.createInBatches(ctx, d, d.Hosts, pr)
}

// createInBatches registers the process and brings it to d's hosting and
// run state (converge), batch by batch, and returns the hosts where it may
// be registered. Hosts of batches never reached stay untouched: not even
// registered.
func (s Steps) createInBatches(ctx context.Context, d Desired, targets []gse.Host, pr *Proven) ([]gse.Host, error) {
	var registered []gse.Host
	st := rollout.Step[gse.Host]{Place: rollout.HostPlace, What: "create", Target: d.Meta, Run: func(ctx context.Context, batch []gse.Host) error {
		got, err := s.register(ctx, d, batch, pr) // through the gateway or ESB, above
		registered = append(registered, got...)
		if err != nil || s.Client.Gateway() { // through the gateway, register converges too
			return err
		}
		return s.converge(ctx, d, got, pr)
	}}
	if d.running() && !d.Spec.OneShot() {
		st.NotRunning = &rollout.RunningCheck[gse.Host]{Client: s.Client, Query: status.GSENotRunning(s.Client, d.Meta)}
	}
	_, err := rollout.Run(ctx, d.Rollout, targets, st)
	return registered, err
}

// register makes the process exist on targets with d's spec, and returns
// the hosts where it may exist, also after an error (never leave an orphan).
// Through ESB that is register_proc_info (converge then hosts and starts it).
//
// GSE 2.0 has no register or unregister (the GSE 2.0 API gateway documents
// neither; an inference from every public caller): an operate carrying the
// full spec (op 0 or 3) creates the process, and a stop (op 1) or unhost
// (op 4) ends its life; the process record stays in GSE, stopped or
// unhosted, as no API removes it. So through the gateway register is one
// operate with the spec: op 0 when running = true, else op 3; then, for
// managed = false, op 1 (running = false) or op 4, so the hosts are
// converged when it returns. Before acting on or trusting the status of a
// host, the provider asks list_agent_state (callers check hosts.AgentsUp
// first): a host whose agent is not running answers 115 forever, and its
// process is absent from status reads.
func (s Steps) register(ctx context.Context, d Desired, targets []gse.Host, pr *Proven) ([]gse.Host, error) {
	if !s.Client.Gateway() {
		done, err := s.Client.Proc.RegisterProcInfo(ctx, d.Meta, targets, d.Spec)
		if err != nil {
			done = mayExist(targets, done, err, func(int) bool { return true })
		}
		return done, err
	}
	op := gse.OpHost
	if d.running() {
		op = gse.OpStart
	}
	if _, err := s.operate(ctx, d.Meta, d.Spec, op, targets, pr); err != nil {
		return mayExist(targets, nil, err, func(code int) bool { return code == gse.HostAgentAbnormal }), err
	}
	var err error
	switch {
	case d.Running != nil && !*d.Running:
		_, err = s.operate(ctx, d.Meta, d.Spec, gse.OpStop, targets, pr)
	case !d.Managed:
		_, err = s.operate(ctx, d.Meta, d.Spec, gse.OpUnhost, targets, pr)
	}
	return targets, err
}

// mayExist is the part of targets on which a failed create may have left the
// process, so that none is left that Terraform does not know of: all of them
// when the outcome is unknown (a deadline, a cut connection), but those no
// request GSE can have acted on reached (gse.HostsError.NotActed); done when the
// request was refused as a whole (by GSE, by the gateway before GSE saw it, or
// before it was sent because an agent is down); and, when GSE answered per
// host, all but the hosts whose code refused says were turned away before the
// spec was taken. register_proc_info turns a host away outright (such as 850,
// someone else's process); an operate with the spec only with 117 (agent
// unknown or abnormal), as any other failure (a start command that failed)
// comes after the spec was taken.
func mayExist(targets, done []gse.Host, err error, refused func(code int) bool) []gse.Host {
	var he *gse.HostsError
	var ae *gse.APIError
	switch {
	case errors.As(err, &he):
		out := slices.Clone(he.NotActed) // never reached GSE
		for _, f := range he.Failures {
			if refused(f.Code) {
				out = append(out, f.Host)
			}
		}
		return plumbing.SelectBy(targets, gse.Host.Key, plumbing.Each(out, gse.Host.Key), false)
	case errors.As(err, &ae) && !ae.MayHaveActed(), errors.As(err, new(*hosts.AgentsDownError)):
		return done
	}
	return targets
}

// converge brings freshly registered hosts to d's hosting and run state
// with one task: a start also hosts the process (operate_proc_v2), so
// running = true is op 0 alone; otherwise op 3 hosts it, and running = false
// (which needs managed = false) stops it.
func (s Steps) converge(ctx context.Context, d Desired, targets []gse.Host, pr *Proven) error {
	var err error
	switch {
	case d.running():
		_, err = s.operate(ctx, d.Meta, d.Spec, gse.OpStart, targets, pr)
	case d.Running != nil:
		_, err = s.operate(ctx, d.Meta, d.Spec, gse.OpStop, targets, pr)
	case d.Managed:
		_, err = s.operate(ctx, d.Meta, d.Spec, gse.OpHost, targets, pr)
	}
	return err
}
