package jobmanagedprocess

import (
	"fmt"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/spec"
)

// jobManagedProcessModel is the resource's state and plan.
type jobManagedProcessModel struct {
	ID          types.String `tfsdk:"id"`
	BkScopeType types.String `tfsdk:"bk_scope_type"`
	BkScopeID   types.String `tfsdk:"bk_scope_id"`
	Contact     types.String `tfsdk:"contact"`
	Account     types.String `tfsdk:"account"`
	spec.JobDefinition
	IPList   []hosts.Ref    `tfsdk:"ip_list"`
	IPStatus types.Map      `tfsdk:"ip_status"`
	Rollout  *rollout.Model `tfsdk:"rollout"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

func (m *jobManagedProcessModel) scope() gse.JobScope {
	return gse.JobScope{Type: m.BkScopeType.ValueString(), ID: m.BkScopeID.ValueString()}
}

func (m *jobManagedProcessModel) ips() []gse.JobIP { return spec.ExpandJobIPs(m.IPList) }

// process is the operate_process item for ips.
func (m *jobManagedProcessModel) process(ips []gse.JobIP) gse.JobProcess {
	p := m.Expand(ips)
	p.Contact, p.Account = m.Contact.ValueString(), m.Account.ValueString()
	return p
}

func (m *jobManagedProcessModel) target() gse.JobTarget {
	return gse.TargetOf(m.scope(), m.process(nil))
}

// id is scope/setup_path/proc_name, with the value_key the agent indexes the process by.
func (m *jobManagedProcessModel) id() string {
	id := fmt.Sprintf("%s/%s/%s", m.scope(), m.SetupPath.ValueString(), m.ProcName.ValueString())
	if k := m.ValueKey.ValueString(); k != "" {
		id += "?" + url.Values{"value_key": {k}}.Encode()
	}
	return id
}
