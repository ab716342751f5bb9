package configfile

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// waitFor waits for a job start began (a push's WaitJob, a script's
// WaitScript) and returns its results.
type waitFor func(context.Context) (*gse.JobStatus, error)

// run starts one JOB job on ts with start, waits for it, and returns each
// host's result by key.
func (r *configFileResource) run(ctx context.Context, plan *configFileModel, ts []target, start func(gse.JobTargets) (waitFor, error)) (map[string]gse.JobHostTask, error) {
	byID := needIDs(ts)
	if byID {
		if err := r.resolveAll(ctx, plan, ts); err != nil {
			return nil, err
		}
	}
	wait, err := start(jobTargets(ts, byID))
	if err != nil {
		return nil, err
	}
	st, err := wait(ctx)
	if err != nil {
		return nil, err
	}
	byHost := map[string]gse.JobHostTask{}
	for _, step := range st.Steps {
		for _, h := range step.Hosts {
			byHost[strconv.FormatInt(h.HostID, 10)] = h
			byHost[gse.Host{IP: h.IP, BkCloudID: h.BkCloudID}.Address()] = h
		}
	}
	out := map[string]gse.JobHostTask{}
	for _, t := range ts {
		switch h, ok := byHost[strconv.FormatInt(t.hostID, 10)]; {
		case ok && t.hostID != 0:
			out[t.key] = h
		case st.Succeeded() && len(byHost) == 0:
			// WaitJob reads no per-host results of a job that succeeded on every host.
			out[t.key] = gse.JobHostTask{HostID: t.hostID, Status: gse.JobHostSuccess}
		default:
			if h, ok := byHost[t.ip.Host().Address()]; ok && !byID {
				out[t.key] = h
			}
		}
	}
	return out, nil
}

// resolveAll fills the host ids JOB needs (resolve), in the plan's business.
func (r *configFileResource) resolveAll(ctx context.Context, plan *configFileModel, ts []target) error {
	biz, err := strconv.ParseInt(plan.BkScopeID.ValueString(), 10, 64)
	if err != nil || plan.BkScopeType.ValueString() != "biz" {
		return fmt.Errorf("hosts given by agent_id or an IPv6 address need their CMDB host id, which is looked up in a business: use bk_scope_type = \"biz\", or bk_host_ids")
	}
	return resolve(ctx, r.client, biz, ts)
}

// jobAccountMissing is bk-job's ACCOUNT_NOT_EXIST: no execution account
// of that alias in the business.
const jobAccountMissing = 1244003

// pushAdvice says what to do about a push that failed: sent, whether any
// host was sent the file (host_status then says which hold it).
func pushAdvice(err error, plan *configFileModel, sent bool) string {
	var ae *gse.APIError
	if errors.As(err, &ae) && ae.Code == jobAccountMissing {
		return fmt.Sprintf("JOB has no execution account with the alias %q in %s %s: set account to the alias of one of its JOB execution accounts "+
			"(JOB's account management lists them), such as root. Nothing was pushed.", plan.Account.ValueString(), plan.BkScopeType.ValueString(), plan.BkScopeID.ValueString())
	}
	advice := jobAdvice(err)
	if !sent {
		return strings.TrimSpace(advice + " Nothing was pushed: fix the cause, then apply again.")
	}
	return strings.TrimSpace(advice + "\n\nhost_status says which hosts hold the file. Fix what is named above, then apply again: it pushes only where the file is not.")
}

// jobAdvice says what to do about a JOB call that failed: the call's
// advice, and the credentials' where JOB refused them.
func jobAdvice(err error) string {
	return strings.TrimSpace(plumbing.CallAdvice(err) + jobCredentialAdvice(err))
}

// verifyAdvice says what to do about a read of the files that failed.
func verifyAdvice(err error) string {
	var re *health.ReadError
	if errors.As(err, &re) {
		return re.Advice()
	}
	return jobAdvice(err)
}

// jobCredentialAdvice adds, for a refusal of the user through the bk-job
// gateway, that JOB's v3 APIs need a verified user there.
func jobCredentialAdvice(err error) string {
	if gse.KindOf(err) == gse.KindAuth && strings.Contains(err.Error(), "bk_username is not verified") {
		return " JOB's v3 APIs need a verified user on the bk-job gateway: set bk_token or a user's access_token."
	}
	return ""
}
