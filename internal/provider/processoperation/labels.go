package processoperation

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// The labels of a GSE target go with every operation: the GSE 2.0 gateway
// takes the process's record from an operation carrying a spec, and whether
// it keeps labels the operation leaves out is not documented (GSEKit sends
// its labels with every operation: bk-process-config-manager
// apps/gsekit/pipeline_plugins/components/collections/gse.py
// BulkGseOperateProcessService._execute). Labels are not what the operation
// does, so a change of them alone does not run it again.

const labelsDesc = "Labels sent with the operation, such as `gse_managed_process.x.meta.labels`: the GSE 2.0 gateway takes the process's record " +
	"from an operation carrying a spec, and may drop labels the operation leaves out. Unset: none are sent. A change of `labels` alone does not run the operation again."

// labelsAttribute is gse.meta.labels.
func labelsAttribute() schema.MapAttribute {
	return schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: labelsDesc}
}

// replaceUnlessLabels plans a replacement (the operation run again) when
// the GSE target changes, unless only its meta.labels did.
func replaceUnlessLabels() planmodifier.Object {
	return objectplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
		resp.RequiresReplace = !withoutLabels(req.StateValue).Equal(withoutLabels(req.PlanValue))
	}, "Runs the operation again when the target changes, but not for meta.labels alone.",
		"Runs the operation again when the target changes, but not for `meta.labels` alone.")
}

// withoutLabels is the GSE target with meta.labels null.
func withoutLabels(target types.Object) types.Object {
	if target.IsNull() || target.IsUnknown() {
		return target
	}
	attrs := target.Attributes()
	meta, ok := attrs["meta"].(types.Object)
	if !ok || meta.IsNull() || meta.IsUnknown() {
		return target
	}
	metaAttrs := meta.Attributes()
	metaAttrs["labels"] = types.MapNull(types.StringType)
	attrs["meta"] = basetypes.NewObjectValueMust(meta.AttributeTypes(context.Background()), metaAttrs)
	return basetypes.NewObjectValueMust(target.AttributeTypes(context.Background()), attrs)
}
