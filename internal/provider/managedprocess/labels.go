package managedprocess

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
)

// unmanagedLabels plans meta.labels left out of the configuration as the
// state holds them: what GSE reported at the last refresh, or none on create.
// Whether update_proc_info keeps the labels it is not sent or drops them is
// not documented, so an update sends them back and either server keeps them;
// without this the plan of an adopted GSEKit process would drop its labels
// on one server and show their removal on every plan on the other.
type unmanagedLabels struct{}

func (unmanagedLabels) Description(context.Context) string {
	return "labels not set in the configuration keep what GSE reports"
}

func (m unmanagedLabels) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (unmanagedLabels) PlanModifyMap(_ context.Context, req planmodifier.MapRequest, resp *planmodifier.MapResponse) {
	if req.ConfigValue.IsNull() {
		resp.PlanValue = req.StateValue
	}
}
