package configfile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/hosts"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/rollout"
)

type configFileModel struct {
	ID               types.String   `tfsdk:"id"`
	BkScopeType      types.String   `tfsdk:"bk_scope_type"`
	BkScopeID        types.String   `tfsdk:"bk_scope_id"`
	Hosts            hosts.List     `tfsdk:"hosts"`
	BkHostIDs        []types.Int64  `tfsdk:"bk_host_ids"`
	Path             types.String   `tfsdk:"path"`
	FileName         types.String   `tfsdk:"file_name"`
	Account          types.String   `tfsdk:"account"`
	Content          types.String   `tfsdk:"content"`
	ContentWO        types.String   `tfsdk:"content_wo"`
	ContentWOVersion types.String   `tfsdk:"content_wo_version"`
	Verify           types.Bool     `tfsdk:"verify"`
	Rollout          *rollout.Model `tfsdk:"rollout"`
	SHA256           types.String   `tfsdk:"sha256"`
	PushCount        types.Int64    `tfsdk:"push_count"`
	HostStatus       types.Map      `tfsdk:"host_status"`
	Timeouts         timeouts.Value `tfsdk:"timeouts"`
}

// Host statuses: pushed by this resource; what a verify read found.
const (
	statusPushed      = "pushed"
	statusMatch       = "match"
	statusDiffers     = "differs"
	statusMissing     = "missing"
	statusUnreachable = "unreachable"
)

// hostFile is one host's entry of host_status.
type hostFile struct {
	Status types.String `tfsdk:"status"`
	SHA256 types.String `tfsdk:"sha256"`
}

// settled reports whether the host holds the file with sum.
func (h hostFile) settled(sum string) bool {
	s := h.Status.ValueString()
	return (s == statusPushed || s == statusMatch) && h.SHA256.ValueString() == sum
}

func (m *configFileModel) scope() gse.JobScope {
	return gse.JobScope{Type: m.BkScopeType.ValueString(), ID: m.BkScopeID.ValueString()}
}

func (m *configFileModel) targets() []target {
	ids := make([]int64, len(m.BkHostIDs))
	for i, id := range m.BkHostIDs {
		ids[i] = id.ValueInt64()
	}
	return targetsOf(m.Hosts.Pairs(), ids)
}

func (m *configFileModel) statuses(ctx context.Context) (map[string]hostFile, diag.Diagnostics) {
	out := map[string]hostFile{}
	if m.HostStatus.IsNull() || m.HostStatus.IsUnknown() {
		return out, nil
	}
	return out, m.HostStatus.ElementsAs(ctx, &out, false)
}

// configText is the file's text from the configuration: content, or the
// write-only content_wo (only in the configuration); known is false when it
// is not known yet.
func configText(ctx context.Context, cfg tfsdk.Config) (text string, known bool, diags diag.Diagnostics) {
	for _, name := range []string{"content", "content_wo"} {
		var v types.String
		diags.Append(cfg.GetAttribute(ctx, path.Root(name), &v)...)
		if v.IsUnknown() {
			return "", false, diags
		}
		if !v.IsNull() {
			return v.ValueString(), true, diags
		}
	}
	return "", false, diags
}

// full is the file's path on the hosts: the directory and the name as JOB
// writes them.
func (m *configFileModel) full() string {
	return health.FilePath(m.Path.ValueString(), m.FileName.ValueString())
}

// sum is the hex SHA-256 of s.
func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
