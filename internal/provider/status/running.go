package status

import (
	"context"
	"fmt"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

// notRunning reads which of targets (hosts, JOB IPs) are not running, by
// their Key, each with what GSE or JOB reported: what wait_running polls
// after each batch.
type notRunning[T any] = func(ctx context.Context, targets []T) (map[string]string, error)

// GSENotRunning is wait_running's check of a GSE process: the hosts whose
// status is not running with a pid, with what GSE reported.
func GSENotRunning(c *gse.Client, meta gse.Meta) notRunning[gse.Host] {
	return func(ctx context.Context, hosts []gse.Host) (map[string]string, error) {
		byKey, err := Find(ctx, c, meta, hosts)
		if err != nil {
			return nil, err
		}
		bad := map[string]string{}
		for _, h := range hosts {
			e, ok := byKey[h.Key()]
			switch {
			case !ok:
				bad[h.Key()] = "the process is not registered"
			case e.Status != gse.StateRunning || e.PID <= 0:
				bad[h.Key()] = fmt.Sprintf("status %s (%d), pid %d", Name(e.Status), e.Status, e.PID)
			}
		}
		return bad, nil
	}
}

// JobNotRunning is wait_running's check of a JOB process (a status query of
// proc on its IPs): the IPs, by gse.JobIP.Key, where no instance has a pid,
// with what the agent reported.
func JobNotRunning(ctx context.Context, c *gse.Client, scope gse.JobScope, proc gse.JobProcess) (map[string]string, error) {
	states, err := FindJob(ctx, c, scope, proc)
	if len(states) == 0 && err != nil {
		return nil, err
	}
	bad := map[string]string{}
	for _, ip := range proc.IPList {
		o, ok := states[ip.Key()]
		if st := JobIPOf(o, ok); st.Status != "running" {
			bad[ip.Key()] = fmt.Sprintf("%s, pid %d", st.Status, st.PID)
		}
	}
	return bad, nil
}

// JobProcsNotRunning is wait_running's check over several JOB processes: an
// IP is not running while any of its processes is not.
func JobProcsNotRunning(c *gse.Client, scope gse.JobScope, procs []gse.JobProcess) notRunning[gse.JobIP] {
	return func(ctx context.Context, ips []gse.JobIP) (map[string]string, error) {
		bad := map[string]string{}
		for _, p := range spec.JobProcsOn(procs, ips) {
			sick, err := JobNotRunning(ctx, c, scope, p)
			if err != nil {
				return nil, err
			}
			for k, v := range sick {
				bad[k] = p.Path() + ": " + v
			}
		}
		return bad, nil
	}
}
