package jobmanagedprocess

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

const jobImportIDFormat = "bk_scope_type:bk_scope_id/setup_path/proc_name@bk_cloud_id:ip[,bk_cloud_id:ip...]?pid_path=...[&value_key=...][&account=...][&contact=...], " +
	"with setup_path written as in the configuration and the query URL-encoded, such as " +
	"biz:2//data/nginx/bin/nginx@0:10.0.0.1,0:10.0.0.2?pid_path=/data/nginx/run/nginx.pid&contact=ops"

var jobScopeRE = regexp.MustCompile(`^(biz|biz_set):([0-9]+)$`)

// jobImport is what an import ID says. pid_path is required because JOB
// refuses every call without it, unregistering included (so an import without
// it could not be destroyed); value_key because it is the agent's index (a
// wrong one would unregister another process); account (root when absent) is
// the agent's account for the process.
type jobImport struct {
	scopeType, scopeID, setupPath, procName string
	pidPath, valueKey, account, contact     string
	ips                                     []gse.JobIP
}

// importJobByID imports jobImportIDFormat. JOB cannot read a definition back:
// every other field (type included) stays empty until the next apply, which
// updates in place and registers the configuration's definition again.
func importJobByID(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	im, err := parseJobImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID for gse_job_managed_process", fmt.Sprintf("%s. Expected %s; got %q.", err, jobImportIDFormat, req.ID))
		return
	}
	m := jobManagedProcessModel{BkScopeType: types.StringValue(im.scopeType), BkScopeID: types.StringValue(im.scopeID),
		Contact: optionalValue(im.contact), Account: types.StringValue(cmp.Or(im.account, "root")), IPList: spec.FlattenJobIPs(im.ips)}
	m.SetupPath, m.ProcName = types.StringValue(im.setupPath), types.StringValue(im.procName)
	m.PidPath, m.ValueKey = types.StringValue(im.pidPath), optionalValue(im.valueKey)
	m.ID = types.StringValue(m.id())
	for name, v := range map[string]any{
		"id": m.ID, "bk_scope_type": m.BkScopeType, "bk_scope_id": m.BkScopeID, "contact": m.Contact, "account": m.Account, "setup_path": m.SetupPath,
		"proc_name": m.ProcName, "pid_path": m.PidPath, "value_key": m.ValueKey, "ip_list": m.IPList,
	} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
	}
}

func optionalValue(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// parseJobImportID reads jobImportIDFormat. The query comes after the first
// '?', the IPs after the last '@' before it: an owner may hold '@' (write it
// %40 or raw), a setup_path may hold '@' but not '?'.
func parseJobImportID(id string) (jobImport, error) {
	var im jobImport
	main, query, _ := strings.Cut(id, "?")
	at := strings.LastIndex(main, "@")
	if at < 0 {
		return im, fmt.Errorf("missing '@' between the process and its IPs")
	}
	target, list := main[:at], main[at+1:]
	scopePart, proc, ok := strings.Cut(target, "/")
	scope := jobScopeRE.FindStringSubmatch(scopePart)
	if !ok || scope == nil {
		return im, fmt.Errorf("the scope %q is not biz:<id> or biz_set:<id>", scopePart)
	}
	im.scopeType, im.scopeID = scope[1], scope[2]
	i := strings.LastIndex(proc, "/")
	if i < 0 || proc[i+1:] == "" {
		return im, fmt.Errorf("%q is not setup_path/proc_name", proc)
	}
	im.setupPath, im.procName = proc[:i], proc[i+1:]
	parsed, err := hosts.ParseImport(list, false, "IP")
	if err != nil {
		return im, err
	}
	for _, h := range parsed {
		im.ips = append(im.ips, gse.JobIP{BkCloudID: h.Cloud, IP: h.IP})
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return im, fmt.Errorf("the query %q is not URL-encoded: %v", query, err)
	}
	for k := range q {
		if !slices.Contains([]string{"pid_path", "value_key", "account", "contact"}, k) {
			return im, fmt.Errorf("unknown query parameter %q (pid_path, value_key, account and contact are known)", k)
		}
	}
	im.pidPath, im.valueKey, im.account, im.contact = q.Get("pid_path"), q.Get("value_key"), q.Get("account"), q.Get("contact")
	if im.pidPath == "" {
		return im, fmt.Errorf("missing ?pid_path=...: JOB requires it on every call, unregistering hosting included")
	}
	return im, nil
}
