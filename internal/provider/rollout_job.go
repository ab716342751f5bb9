package provider

import (
	"context"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// manageInBatches sends manage_proc op for ips of m batch by batch (see
// rollout.run); acted receives each batch's outcome, so the caller records
// what took effect as it happens. wait_running applies to registering
// hosting (the agent pulls a resident process up), when pid_path lets the
// status query find the process.
func (r *jobManagedProcessResource) manageInBatches(ctx context.Context, m *jobManagedProcessModel, op gse.JobManageOp, ips []gse.JobIP, acted func(*gse.JobOutcome, error)) error {
	scope := m.scope()
	what := "unregister hosting"
	if op == gse.JobRegister {
		what = "register hosting"
	}
	st := rolloutStep{what: what, target: m.target(), run: func(ctx context.Context, batch []gse.Host) error {
		out, err := r.client.Job.Manage(ctx, scope, op, m.process(each(batch, gse.Host.JobIP)))
		acted(out, err)
		return err
	}}
	if op == gse.JobRegister && m.PidPath.ValueString() != "" {
		st.notRunning = &runningCheck{client: r.client, query: func(ctx context.Context, batch []gse.Host) (map[string]string, error) {
			return jobNotRunning(ctx, r.client, scope, m.process(each(batch, gse.Host.JobIP)))
		}}
	}
	_, err := m.Rollout.plan().run(ctx, each(ips, gse.JobIP.Host), st)
	return err
}
